"""Real servers for tests that need more than the in-process TestClient: the app served by uvicorn
in a thread of the test process (`app_in_thread`), or whole `sathub serve` processes
(`sathub_server`)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import uvicorn
from sqlalchemy.engine import Engine

from sathub import db
from sathub.app import create_app
from sathub.config import Settings


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def app_in_thread(
    database: Path, *, prefix: str = "", http: str | type = "auto", **settings
) -> Iterator[tuple[str, Engine]]:
    """The app on a free port, served by uvicorn in a thread, on a migrated SQLite database at
    `database`, its public base URL under `prefix`; yields (that base URL, the engine). `http` is
    uvicorn's HTTP protocol (`sathub serve` runs server/http_protocol.py's); `settings` are more
    Settings fields (secret_key, archiver_key, ...)."""
    port = free_port()
    site = f"http://127.0.0.1:{port}{prefix}"
    url = f"sqlite:///{database}"
    engine = db.create_engine(url)
    db.upgrade(engine)
    app = create_app(Settings(database_url=url, base_url=site, **settings), engine=engine)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", http=http))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        yield site, engine
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.dispose()


@contextlib.contextmanager
def sathub_server(
    database_url: str, *, base_url: str = "", workers: int = 1, env: dict | None = None, output: Path | None = None
):
    """Start `sathub serve` on a free port and yield its root URL (with the base URL's prefix). Its
    output goes to a file (`output`, else a temporary one), never to a pipe nobody reads: a server
    whose log fills a pipe's 64 KiB stops answering."""
    port = free_port()
    environ = {
        **os.environ,
        "SATHUB_DATABASE_URL": database_url,
        "SATHUB_PORT": str(port),
        "SATHUB_WORKERS": str(workers),
        "SATHUB_LOG_LEVEL": "warning",
        "SATHUB_BASE_URL": base_url.format(port=port),
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    with tempfile.TemporaryDirectory() as folder:
        log = output or Path(folder) / "serve.log"
        with log.open("wb") as written:
            process = subprocess.Popen(
                [sys.executable, "-m", "sathub", "serve"], env=environ, stdout=written, stderr=subprocess.STDOUT
            )
        root = base_url.format(port=port) or f"http://127.0.0.1:{port}"
        with serving(process, root, lambda: log.read_text(errors="replace")):
            yield root


@contextlib.contextmanager
def serving(process: subprocess.Popen, root: str, output: Callable[[], str]) -> Iterator[None]:
    """Wait until `process`, a `sathub serve`, answers at `root` (its `output()` told if it exits
    first), then let the block run, then stop it."""
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"sathub serve exited: {output()}")
            try:
                if httpx.get(f"{root}/api/v1/statuses.php", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("sathub serve did not start within 60 s")
            time.sleep(0.2)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
