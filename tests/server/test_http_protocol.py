"""Connection limits of a real `sathub serve` (http_protocol.py): oversized or slow headers are
refused, idle sockets do not starve real requests, and a process keeps a bounded number open.
An answer's head goes out with its body, in one write; a BodyWriter writes a chunked body's
pieces as send would."""

import asyncio
import logging
import socket
import statistics
import time

import httpx
import pytest
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

from sathub.server.connection_hooks import BodyWriter, HeadWithBody, chunk
from tests.live_server import sathub_server

pytestmark = pytest.mark.slow

# No per-client share (test_http_protocol_clients.py has it): every socket here comes from 127.0.0.1.
LIMITS = {
    "SATHUB_MAX_HEADER_BYTES": "8192",
    "SATHUB_HEADER_TIMEOUT": "1",
    "SATHUB_MAX_CONNECTIONS": "600",
    "SATHUB_MAX_CONNECTIONS_PER_CLIENT": "0",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('limits') / 'sathub.db'}"
    with sathub_server(url, env=LIMITS) as root:
        yield root


def address(root: str) -> tuple[str, int]:
    host, port = root.removeprefix("http://").split(":")
    return host, int(port)


# How much later than its timer an answer may come: a busy 2-core machine (load 8-14) delays a
# process by tenths of a second, and a timer that is never armed is caught by the sockets' own 5 s.
LATE = 2


def exchange(root: str, data: bytes, timeout: float = 5) -> bytes:
    with socket.create_connection(address(root), timeout=timeout) as sock:
        sock.sendall(data)
        return sock.recv(65536)


def test_oversized_headers_are_431(server):
    huge = b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 1_000_000
    with socket.create_connection(address(server), timeout=5) as sock:
        try:
            sock.sendall(huge)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused while we were still sending
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 431")  # not the 408 of headers that would not end in time


def test_bodies_do_not_count_as_headers(server):
    response = httpx.post(f"{server}/api/v1/reports.php", json={"name": "AO-91", "padding": "x" * 60000})
    assert response.status_code == 422  # read and judged, not refused as large headers


def test_headers_that_never_come_or_trickle_are_408(server):
    started = time.monotonic()
    with socket.create_connection(address(server), timeout=5) as sock:
        assert sock.recv(65536).startswith(b"HTTP/1.1 408")
    assert 0.9 < time.monotonic() - started < 1 + LATE  # SATHUB_HEADER_TIMEOUT=1
    with socket.create_connection(address(server), timeout=5) as sock:
        sock.sendall(b"GET /api/v1/statuses.php HTTP/1.1\r\n")
        time.sleep(0.6)
        sock.sendall(b"Host: x\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 408")


def test_idle_sockets_do_not_stop_real_requests(server):
    """A request among 500 idle sockets takes about what one takes without them (the median of five
    each, measured here one after the other, so that a busy machine slows both alike). Were the
    idle sockets to stop the server, a request would wait for their header timeout (1 s)."""

    def median_request(client: httpx.Client) -> float:
        durations = []
        for _ in range(5):
            started = time.monotonic()
            assert client.get(f"{server}/api/v1/statuses.php").status_code == 200
            durations.append(time.monotonic() - started)
        return statistics.median(durations)

    # A new connection for each request, as the idle sockets' neighbours would open.
    with httpx.Client(timeout=5, headers={"Connection": "close"}) as client:
        alone = median_request(client)
        idle = [socket.create_connection(address(server)) for _ in range(500)]
        try:
            among_idle = median_request(client)
        finally:
            for sock in idle:
                sock.close()
    assert among_idle < 3 * alone + 0.2, (alone, among_idle)


def test_connections_beyond_the_limit_are_refused_and_the_limit_frees_itself(server):
    held = [socket.create_connection(address(server)) for _ in range(600)]
    try:
        time.sleep(0.2)
        assert exchange(server, b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 503")
        time.sleep(1.5)  # the held sockets sent no headers: closed after the header timeout
        assert httpx.get(f"{server}/api/v1/statuses.php", timeout=5).status_code == 200
    finally:
        for sock in held:
            sock.close()


def test_a_413_answered_before_its_body_keeps_the_connection_in_step(server):
    """The rest of a refused body is that request's body, not the next request's headers."""
    body = b'{"name": "' + b"x" * (1024 * 1024) + b'"}'
    with socket.create_connection(address(server), timeout=10) as sock:
        sock.sendall(
            b"POST /api/v1/reports.php HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        sock.sendall(b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\n\r\n")
        received = b""
        while received.count(b"HTTP/1.1 ") < 2 or not received.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    answers = received.split(b"HTTP/1.1 ")[1:]
    assert [answer[:3] for answer in answers] == [b"413", b"200"]


class Recorded:
    """A transport that records what is written, call by call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bytes]] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.calls.append(("write", bytes(data)))

    def writelines(self, pieces) -> None:
        self.calls.append(("writelines", b"".join(pieces)))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return 0


def cycle_writing_to(recorded: Recorded, method: str = "GET", expect_100: bool = False) -> RequestResponseCycle:
    """uvicorn's own response cycle, with the transport http_protocol gives it."""
    logger = logging.getLogger("test")
    cycle = RequestResponseCycle(
        scope={"type": "http", "method": method, "path": "/", "http_version": "1.1"},
        transport=recorded,
        flow=FlowControl(recorded),
        logger=logger,
        access_logger=logger,
        access_log=False,
        default_headers=[],
        message_event=asyncio.Event(),
        expect_100_continue=expect_100,
        keep_alive=True,
        on_response=lambda: None,
    )
    cycle.transport = HeadWithBody(recorded, cycle)
    return cycle


def start(length: int) -> dict:
    return {"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(length).encode())]}


def test_a_head_goes_out_with_its_body_in_one_write():
    async def answer() -> list:
        recorded = Recorded()
        cycle = cycle_writing_to(recorded)
        await cycle.send(start(5))
        assert recorded.calls == []  # held for the body
        await cycle.send({"type": "http.response.body", "body": b"hello"})
        return recorded.calls

    calls = asyncio.run(answer())
    assert calls == [("writelines", b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello")]


def test_a_streamed_body_goes_out_piece_by_piece_after_the_first():
    async def answer() -> list:
        recorded = Recorded()
        cycle = cycle_writing_to(recorded)
        await cycle.send({"type": "http.response.start", "status": 200, "headers": []})  # chunked
        await cycle.send({"type": "http.response.body", "body": b"ab", "more_body": True})
        await cycle.send({"type": "http.response.body", "body": b"cd", "more_body": True})
        await cycle.send({"type": "http.response.body", "body": b""})
        return recorded.calls

    calls = asyncio.run(answer())
    assert [kind for kind, _ in calls] == ["writelines", "write", "write"]
    assert calls[0][1].endswith(b"transfer-encoding: chunked\r\n\r\n2\r\nab\r\n")
    assert calls[1][1] == b"2\r\ncd\r\n" and calls[2][1] == b"0\r\n\r\n"


def test_a_body_writer_writes_what_send_would_and_only_when_send_would_at_once():
    async def answer() -> tuple[list, list]:
        recorded = Recorded()
        cycle = cycle_writing_to(recorded)
        writer = BodyWriter(cycle)
        refused = [writer.write(chunk(b"early"))]  # nothing started: no chunked body yet
        await cycle.send({"type": "http.response.start", "status": 200, "headers": []})  # chunked
        assert writer.write(chunk(b"ab"))  # goes out with the head
        await cycle.send({"type": "http.response.body", "body": b"cd", "more_body": True})
        assert writer.write(chunk(b"ef"))
        cycle.flow.pause_writing()  # the client reads too slowly: send waits for the drain
        refused.append(writer.write(chunk(b"paused")))
        cycle.flow.resume_writing()
        await cycle.send({"type": "http.response.body", "body": b""})
        refused.append(writer.write(chunk(b"ended")))

        sized = cycle_writing_to(Recorded())
        await sized.send(start(5))  # a Content-Length: its body is not chunked
        refused.append(BodyWriter(sized).write(chunk(b"hello")))
        gone = cycle_writing_to(Recorded())
        await gone.send({"type": "http.response.start", "status": 200, "headers": []})
        gone.disconnected = True
        refused.append(BodyWriter(gone).write(chunk(b"nobody")))
        return recorded.calls, refused

    calls, refused = asyncio.run(answer())
    assert refused == [False] * 5
    assert [kind for kind, _ in calls] == ["writelines", "write", "write", "write"]
    assert calls[0][1].endswith(b"transfer-encoding: chunked\r\n\r\n2\r\nab\r\n")
    assert [data for _, data in calls[1:]] == [b"2\r\ncd\r\n", b"2\r\nef\r\n", b"0\r\n\r\n"]


def test_100_continue_goes_out_at_once_and_an_abandoned_answer_keeps_its_head():
    async def answer() -> tuple[list, bool]:
        recorded = Recorded()
        cycle = cycle_writing_to(recorded, method="POST", expect_100=True)
        cycle.message_event.set()
        await cycle.receive()  # the app asks for the body: the client is told to send it
        assert recorded.calls == [("write", b"HTTP/1.1 100 Continue\r\n\r\n")]
        await cycle.send(start(5))
        cycle.transport.close()  # what uvicorn does when the app fails after starting its answer
        return recorded.calls, recorded.closed

    calls, closed = asyncio.run(answer())
    assert calls[1] == ("write", b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n") and closed


def test_a_real_server_answers_expect_100_continue_and_head(server):
    with socket.create_connection(address(server), timeout=5) as sock:
        body = b'{"name": "AO-91"}'
        sock.sendall(
            b"POST /api/v1/reports.php HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Expect: 100-continue\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
        )
        assert sock.recv(65536) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        assert sock.recv(65536).startswith(b"HTTP/1.1 422")
    head = exchange(server, b"HEAD /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and head.endswith(b"\r\n\r\n")
