"""One client address holds at most its share of a process's connections
(SATHUB_MAX_CONNECTIONS_PER_CLIENT, http_protocol.py): the flood of issue 23 (one client opening
every connection with a body that never comes) leaves others served, and a share set larger than
the process's connections is at most a quarter of them (issue 40: with SATHUB_MAX_CONNECTIONS=300
and the default share of 512, 320 slow bodies from one address kept every other client waiting).
Trusted proxies, whose clients are many, have no share, nor has anyone when the share is 0."""

import select
import socket
import time

import httpx
import pytest

from tests.live_server import sathub_server

pytestmark = pytest.mark.slow

# The default share (512) beside 300 connections: a client address gets a quarter of them (README).
MAX_CONNECTIONS, SHARE = 300, 300 // 4
FLOODER, PROXY, OTHER = "127.0.0.2", "127.0.0.3", "127.0.0.1"


def limits(share: int | None) -> dict:
    """The settings of a test server; its share unset when None (the default, 512)."""
    return {
        "SATHUB_MAX_CONNECTIONS": str(MAX_CONNECTIONS),
        **({"SATHUB_MAX_CONNECTIONS_PER_CLIENT": str(share)} if share is not None else {}),
        "SATHUB_TRUSTED_PROXIES": PROXY,
        "SATHUB_BODY_TIMEOUT": "3",
        "SATHUB_HEADER_TIMEOUT": "5",
    }


@pytest.fixture(scope="module")
def server_log(tmp_path_factory):
    return tmp_path_factory.mktemp("clients_log") / "serve.log"


@pytest.fixture(scope="module")
def server(tmp_path_factory, server_log):
    url = f"sqlite:///{tmp_path_factory.mktemp('clients') / 'sathub.db'}"
    with sathub_server(url, env=limits(None), output=server_log) as root:
        yield root


@pytest.fixture(scope="module")
def server_without_share(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('no_share') / 'sathub.db'}"
    with sathub_server(url, env=limits(0)) as root:
        yield root


def address(root: str) -> tuple[str, int]:
    host, port = root.removeprefix("http://").split(":")
    return host, int(port)


STALLED = (
    b"POST /api/v1/reports.php HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 1000\r\n\r\n"
)  # and a body that never comes


def hold(root: str, source: str, count: int) -> list[socket.socket]:
    held = []
    for _ in range(count):
        sock = socket.create_connection(address(root), source_address=(source, 0))
        sock.sendall(STALLED)
        held.append(sock)
    return held


def answered(held: list[socket.socket], wait: float) -> list[bytes]:
    """The status codes answered so far on the held sockets (b"" for those still waiting)."""
    time.sleep(wait)
    readable = set(select.select(held, [], [], 0)[0])
    codes = []
    for sock in held:
        try:
            codes.append(sock.recv(65536)[9:12] if sock in readable else b"")
        except ConnectionResetError:
            codes.append(b"reset")
    return codes


def get_from(root: str, source: str) -> int:
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=5) as client:
        return client.get(f"{root}/api/v1/statuses.php").status_code


def close(held: list[socket.socket]) -> None:
    for sock in held:
        sock.close()


def test_one_client_holding_every_connection_leaves_the_others_served(server):
    held = hold(server, FLOODER, MAX_CONNECTIONS + 20)
    try:
        assert get_from(server, OTHER) == 200
        codes = answered(held, 0.3)
        assert codes.count(b"503") == MAX_CONNECTIONS + 20 - SHARE and codes.count(b"") == SHARE
        assert get_from(server, OTHER) == 200
        codes = answered(held, 3.2)  # the admitted ones: past the body deadline
        assert codes.count(b"408") == SHARE
        assert get_from(server, FLOODER) == 200  # its share is free again
    finally:
        close(held)


def test_serve_says_the_share_it_keeps(server, server_log):
    assert (
        f"A client address holds at most {SHARE} connections, a quarter of SATHUB_MAX_CONNECTIONS (300), "
        "not SATHUB_MAX_CONNECTIONS_PER_CLIENT (512)."
    ) in server_log.read_text()


def test_a_trusted_proxy_has_no_share(server):
    held = hold(server, PROXY, SHARE + 50)
    try:
        assert answered(held, 0.3).count(b"") == SHARE + 50  # none refused
        assert get_from(server, PROXY) == 200
    finally:
        close(held)


def test_a_share_of_0_is_no_share(server_without_share):
    held = hold(server_without_share, FLOODER, SHARE + 50)
    try:
        assert answered(held, 0.3).count(b"") == SHARE + 50
        assert get_from(server_without_share, FLOODER) == 200
    finally:
        close(held)
