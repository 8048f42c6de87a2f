"""Connection limits of a real `sathub serve` (http_protocol.py): oversized or slow headers are
refused, idle sockets do not starve real requests, and a process keeps a bounded number open."""

import socket
import time

import httpx
import pytest

from tests.live_server import sathub_server

pytestmark = pytest.mark.slow

LIMITS = {"SATHUB_MAX_HEADER_BYTES": "8192", "SATHUB_HEADER_TIMEOUT": "1", "SATHUB_MAX_CONNECTIONS": "600"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('limits') / 'sathub.db'}"
    with sathub_server(url, env=LIMITS) as root:
        yield root


def address(root: str) -> tuple[str, int]:
    host, port = root.removeprefix("http://").split(":")
    return host, int(port)


def exchange(root: str, data: bytes, timeout: float = 5) -> bytes:
    with socket.create_connection(address(root), timeout=timeout) as sock:
        sock.sendall(data)
        return sock.recv(65536)


def test_oversized_headers_are_431(server):
    huge = b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 1_000_000
    started = time.monotonic()
    with socket.create_connection(address(server), timeout=5) as sock:
        try:
            sock.sendall(huge)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused while we were still sending
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 431") and time.monotonic() - started < 2


def test_bodies_do_not_count_as_headers(server):
    response = httpx.post(f"{server}/api/v1/reports.php", json={"name": "AO-91", "padding": "x" * 60000})
    assert response.status_code == 422  # read and judged, not refused as large headers


def test_headers_that_never_come_or_trickle_are_408(server):
    started = time.monotonic()
    with socket.create_connection(address(server), timeout=5) as sock:
        assert sock.recv(65536).startswith(b"HTTP/1.1 408")
    assert 0.9 < time.monotonic() - started < 3
    with socket.create_connection(address(server), timeout=5) as sock:
        sock.sendall(b"GET /api/v1/statuses.php HTTP/1.1\r\n")
        time.sleep(0.6)
        sock.sendall(b"Host: x\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 408")


def test_idle_sockets_do_not_stop_real_requests(server):
    idle = [socket.create_connection(address(server)) for _ in range(500)]
    try:
        started = time.monotonic()
        for _ in range(5):
            assert httpx.get(f"{server}/api/v1/statuses.php", timeout=5).status_code == 200
        assert time.monotonic() - started < 2
    finally:
        for sock in idle:
            sock.close()


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
        sock.sendall(b"POST /api/v1/reports.php HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        sock.sendall(b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\n\r\n")
        received = b""
        while received.count(b"HTTP/1.1 ") < 2 or not received.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    answers = received.split(b"HTTP/1.1 ")[1:]
    assert [answer[:3] for answer in answers] == [b"413", b"200"]
