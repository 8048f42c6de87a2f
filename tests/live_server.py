"""Real `sathub serve` processes for tests that need more than the in-process TestClient."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def sathub_server(database_url: str, *, base_url: str = "", workers: int = 1, env: dict | None = None):
    """Start `sathub serve` on a free port and yield its root URL (with the base URL's prefix)."""
    port = free_port()
    environ = {**os.environ, "SATHUB_DATABASE_URL": database_url, "SATHUB_PORT": str(port),
               "SATHUB_WORKERS": str(workers), "SATHUB_LOG_LEVEL": "warning",
               "SATHUB_BASE_URL": base_url.format(port=port), **(env or {})}
    process = subprocess.Popen([sys.executable, "-m", "sathub", "serve"], env=environ,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    root = base_url.format(port=port) or f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"sathub serve exited: {process.stdout.read().decode(errors='replace')}")
            try:
                if httpx.get(f"{root}/api/v1/statuses.php", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("sathub serve did not start within 60 s")
            time.sleep(0.2)
        yield root
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
