"""A request's body has a deadline once its headers are in (http_protocol.py,
SATHUB_BODY_TIMEOUT): a body that never comes, or trickles, is answered 408 and its connection
closed; an answer already begun is cut instead. A client that goes away mid-body leaves one info
line in the log, not an ERROR traceback."""

import contextlib
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.live_server import free_port, serving

pytestmark = pytest.mark.slow

LIMITS = {"SATHUB_BODY_TIMEOUT": "1", "SATHUB_HEADER_TIMEOUT": "2"}
# How much later than its timer an answer may come: a busy 2-core machine (load 8-14) delays a
# process by tenths of a second, and a timer that is never armed is caught by the sockets' own 5 s.
LATE = 2
REPORT = b'{"name": "AO-91"}'


@contextlib.contextmanager
def logged_server(database: Path, log: Path, env: dict):
    """`sathub serve` at log level info, its output in `log`; yields its address."""
    port = free_port()
    environ = {
        **os.environ,
        "SATHUB_DATABASE_URL": f"sqlite:///{database}",
        "SATHUB_PORT": str(port),
        "SATHUB_LOG_LEVEL": "info",
        "PYTHONUNBUFFERED": "1",
        **env,
    }
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "sathub", "serve"], env=environ, stdout=output, stderr=subprocess.STDOUT
        )
    with serving(process, f"http://127.0.0.1:{port}", log.read_text):
        yield "127.0.0.1", port


class Served:
    def __init__(self, address: tuple[str, int], log: Path) -> None:
        self.address, self.log = address, log

    def log_since(self, offset: int) -> str:
        return self.log.read_bytes()[offset:].decode(errors="replace")

    def log_size(self) -> int:
        return self.log.stat().st_size


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("body")
    with logged_server(folder / "sathub.db", folder / "serve.log", LIMITS) as address:
        yield Served(address, folder / "serve.log")


def post_head(path: bytes, length: int, content_type: bytes = b"application/json") -> bytes:
    return (
        b"POST "
        + path
        + b" HTTP/1.1\r\nHost: x\r\nContent-Type: "
        + content_type
        + b"\r\nContent-Length: "
        + str(length).encode()
        + b"\r\n\r\n"
    )


def read_all(sock: socket.socket) -> bytes:
    """What the server sends until it closes the connection (or 5 s pass)."""
    received = b""
    with contextlib.suppress(ConnectionResetError, TimeoutError):
        while chunk := sock.recv(65536):
            received += chunk
    return received


def test_a_body_that_never_comes_is_408_after_the_body_timeout(server):
    started = time.monotonic()
    with socket.create_connection(server.address, timeout=5) as sock:
        sock.sendall(post_head(b"/api/v1/reports.php", 1000) + b"0123456789")
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408") and b"connection: close" in answer
    assert 0.9 < time.monotonic() - started < 1 + LATE


def test_a_trickling_body_is_408_at_its_deadline_not_reset_by_each_byte(server):
    """Were each byte to reset the deadline, no answer would come while bytes keep coming."""
    started = time.monotonic()
    with socket.create_connection(server.address, timeout=5) as sock:
        sock.sendall(post_head(b"/api/v1/reports.php", 1000))
        while not (answered := bool(select.select([sock], [], [], 0.1)[0])) and time.monotonic() - started < 10:
            sock.sendall(b" ")  # a byte every 0.1 s, until the server answers (its body timeout is 1 s)
        answer = read_all(sock)
    assert answered and answer.startswith(b"HTTP/1.1 408")


def test_an_answer_begun_before_its_body_is_cut_not_answered_twice(server):
    """A 413 goes out before the body is read; the rest of that body still has its deadline."""
    started = time.monotonic()
    with socket.create_connection(server.address, timeout=5) as sock:
        sock.sendall(post_head(b"/api/v1/reports.php", 1024 * 1024) + b"x" * 100)
        answer = read_all(sock)  # until the server closes the connection
    assert answer.startswith(b"HTTP/1.1 413") and answer.count(b"HTTP/1.1 ") == 1
    assert 0.9 < time.monotonic() - started < 1 + LATE


def test_a_body_within_its_deadline_is_served_and_the_connection_kept(server):
    with socket.create_connection(server.address, timeout=5) as sock:
        sock.sendall(post_head(b"/api/v1/reports.php", len(REPORT)))
        time.sleep(0.5)
        sock.sendall(REPORT)
        assert sock.recv(65536).startswith(b"HTTP/1.1 422")
        time.sleep(1.5)  # past the body deadline of the request answered: no stray 408
        sock.sendall(b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize(
    "path, content_type",
    [(b"/api/v1/reports.php", b"application/json"), (b"/submit.php", b"application/x-www-form-urlencoded")],
)
def test_a_client_gone_mid_body_is_one_info_line_not_an_error(server, path, content_type):
    offset = server.log_size()
    for _ in range(3):
        with socket.create_connection(server.address, timeout=5) as sock:
            sock.sendall(post_head(path, 1000, content_type) + b"0123456789")
            time.sleep(0.2)
    time.sleep(0.5)
    assert httpx.get(f"http://{server.address[0]}:{server.address[1]}/api/v1/statuses.php").status_code == 200
    log = server.log_since(offset)
    assert "ERROR" not in log and "Traceback" not in log, log
    lines = [line for line in log.splitlines() if path.decode() in line]
    assert len(lines) <= 3 and all(line.startswith("INFO:") and len(line) < 200 for line in lines), log


def test_a_body_too_slow_leaves_no_error_in_the_log(server):
    offset = server.log_size()
    with socket.create_connection(server.address, timeout=5) as sock:
        sock.sendall(post_head(b"/submit.php", 1000, b"application/x-www-form-urlencoded"))
        assert read_all(sock).startswith(b"HTTP/1.1 408")
    time.sleep(0.3)
    log = server.log_since(offset)
    assert "ERROR" not in log and "Traceback" not in log, log
