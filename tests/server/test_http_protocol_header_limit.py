"""The header limit of http_protocol.py, to the byte: a request's header bytes are its request line
and header lines up to and including the blank line that ends them; exactly
SATHUB_MAX_HEADER_BYTES of them are served, one more is 431, however the request is cut into
writes, with its body in the same write, or pipelined behind another request."""

import socket
import time

import pytest

from tests.live_server import sathub_server

pytestmark = pytest.mark.slow

LIMIT = 8192


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('header_limit') / 'sathub.db'}"
    with sathub_server(url, env={"SATHUB_MAX_HEADER_BYTES": str(LIMIT)}) as root:
        host, port = root.removeprefix("http://").split(":")
        yield host, int(port)


def request_of(size: int, method: bytes = b"GET", path: bytes = b"/api/v1/statuses.php", extra: bytes = b"") -> bytes:
    """A request whose header bytes (request line to blank line) are exactly `size`; it asks the
    server to close the connection after its answer."""
    head = method + b" " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + extra + b"X-Pad: "
    return head + b"a" * (size - len(head) - len(b"\r\n\r\n")) + b"\r\n\r\n"


def statuses(address: tuple[str, int], pieces: list[bytes], pause: float = 0.02) -> list[bytes]:
    """The status codes of the answers to `pieces`, sent as separate writes, read until the
    server closes the connection."""
    with socket.create_connection(address, timeout=5) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for number, piece in enumerate(pieces):
            if number:
                time.sleep(pause)  # a read of its own on the server
            try:
                sock.sendall(piece)
            except (BrokenPipeError, ConnectionResetError):
                break  # refused while we were still sending
        received = b""
        while chunk := recv(sock):
            received += chunk
    return [answer[:3] for answer in received.split(b"HTTP/1.1 ")[1:]]


def recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except ConnectionResetError:
        return b""


def in_pieces(data: bytes, size: int) -> list[bytes]:
    return [data[start : start + size] for start in range(0, len(data), size)]


WRITES = {
    "one write": lambda data: [data],
    "writes of 1000 bytes": lambda data: in_pieces(data, 1000),
    "the last byte alone": lambda data: [data[:-1], data[-1:]],
    "the last two bytes alone": lambda data: [data[:-2], data[-2:]],
    "the last three bytes alone": lambda data: [data[:-3], data[-3:]],
    "the limit, then the rest": lambda data: [data[:LIMIT], data[LIMIT:]],
}


@pytest.mark.parametrize("cut", WRITES)
def test_exactly_the_limit_is_served_and_one_byte_more_is_431(server, cut):
    assert statuses(server, WRITES[cut](request_of(LIMIT))) == [b"200"]
    assert statuses(server, WRITES[cut](request_of(LIMIT + 1))) == [b"431"]


def test_a_body_in_the_same_write_does_not_count(server):
    body = b'{"name": "AO-91"}'
    extra = b"Content-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n"
    post = b"POST"
    assert statuses(server, [request_of(LIMIT, post, b"/api/v1/reports.php", extra) + body]) == [b"422"]
    assert statuses(server, [request_of(LIMIT + 1, post, b"/api/v1/reports.php", extra) + body]) == [b"431"]


def test_pipelined_requests_are_counted_each_from_its_own_first_byte(server):
    first = b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\n\r\n"
    assert statuses(server, [first + request_of(LIMIT)]) == [b"200", b"200"]
    assert statuses(server, [first + request_of(LIMIT + 1)]) == [b"200", b"431"]
    # behind a request with a body, and behind a chunked one
    body = b'{"name": "AO-91"}'
    post = (
        b"POST /api/v1/reports.php HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    chunked = (
        b"POST /api/v1/reports.php HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
    )
    for before in (post, chunked):
        assert statuses(server, [before + request_of(LIMIT)]) == [b"422", b"200"]
        assert statuses(server, [before + request_of(LIMIT + 1)]) == [b"422", b"431"]
        assert statuses(server, [before + request_of(LIMIT)[:100], request_of(LIMIT)[100:]]) == [b"422", b"200"]
        assert statuses(server, [before + request_of(LIMIT + 1)[:100], request_of(LIMIT + 1)[100:]]) == [b"422", b"431"]


def test_empty_lines_before_a_request_line_do_not_count(server):
    assert statuses(server, [b"\r\n" * 100 + request_of(LIMIT)]) == [b"200"]
    assert statuses(server, [b"\r\n" * 100, request_of(LIMIT)]) == [b"200"]
