"""`sathub serve --workers 2` (server/workers.py), a real server: each worker listens on a socket
of its own, so that connections opened at once are spread over both (uvicorn's shared socket gave
them all, or three quarters, to one); a worker that dies is replaced; a stop ends every worker."""

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter

import pytest

from tests.live_server import free_port, sathub_server

pytestmark = pytest.mark.slow

PID = re.compile(r"pid=(\d+)")
REQUEST = b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def _pids(*ss_arguments: str) -> list[int]:
    """The processes holding the sockets `ss` lists (one entry per socket)."""
    lines = subprocess.run(["ss", "-tnpH", *ss_arguments], capture_output=True, text=True, check=True).stdout
    return [int(pid) for line in lines.splitlines() for pid in PID.findall(line)[:1]]


def _listening(port: int) -> set[int]:
    return set(_pids("-l", f"sport = :{port}"))


def _both_listening(port: int, seconds: float = 30) -> set[int]:
    deadline = time.monotonic() + seconds
    while len(pids := _listening(port)) != 2:
        assert time.monotonic() < deadline, f"listening: {pids}"
        time.sleep(0.1)
    return pids


def _port(root: str) -> int:
    return int(root.rsplit(":", 1)[1])


def test_connections_opened_at_once_are_spread_over_the_workers(tmp_path):
    """128 connections, each answered once (so accepted): the kernel hashes each to one worker's
    socket, so each worker holds about half. Binomial(128, ½) is below 40 once in 45,000 rounds;
    a shared socket gave one worker 64 of 64 or 47 of 64."""
    with sathub_server(f"sqlite:///{tmp_path / 's.db'}", workers=2) as root:
        port = _port(root)
        workers = _both_listening(port)
        for _ in range(2):
            connections = [socket.create_connection(("127.0.0.1", port)) for _ in range(128)]
            try:
                for connection in connections:
                    connection.sendall(REQUEST)
                for connection in connections:
                    assert connection.recv(64).startswith(b"HTTP/1.1 200")
                held = Counter(pid for pid in _pids("state", "established", f"sport = :{port}") if pid in workers)
            finally:
                for connection in connections:
                    connection.close()
            assert sum(held.values()) == 128
            assert len(held) == 2 and min(held.values()) >= 40, held


def test_a_worker_that_dies_is_replaced_and_a_stop_ends_them_all(tmp_path):
    with sathub_server(f"sqlite:///{tmp_path / 's.db'}", workers=2) as root:
        port = _port(root)
        first, second = sorted(_both_listening(port))
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while (now := _listening(port)) in ({second}, {first, second}):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        now = _both_listening(port)
        assert second in now and first not in now
        with socket.create_connection(("127.0.0.1", port)) as connection:
            connection.sendall(REQUEST)
            assert connection.recv(64).startswith(b"HTTP/1.1 200")
    # sathub_server sent SIGTERM to the supervisor alone, and it has exited
    for pid in now:
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{pid}") and _state(pid) != "Z":
            assert time.monotonic() < deadline, f"worker {pid} still running"
            time.sleep(0.1)


def test_workers_that_cannot_start_stop_the_supervisor_with_uvicorns_startup_failure():
    """Not started again and again: a broken app would fail the same way for ever."""
    code = (
        "import uvicorn; from sathub.server.workers import serve_workers; "
        f"serve_workers(uvicorn.Config('tests.server.failing_app:app', port={free_port()}, lifespan='on'), 2)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert "failed to start; stopping" in done.stderr


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"
