"""A database that fails once an export's answer has begun: one log line, no traceback, and the
connection cut, so that the client sees a truncated download rather than a gzip that looks whole.
Served by uvicorn with `sathub serve`'s protocol (server/http_protocol.py), in a thread."""

from __future__ import annotations

import logging
import threading
import time
import zlib

import httpx
import pytest
import uvicorn
from sqlalchemy.exc import OperationalError

from sathub.app import create_app
from sathub.archive.export import endpoint
from sathub.archive.export.slots import SLOTS
from sathub.archive.store import email_sources
from tests.archive.source_fixtures import LIST, import_fixture
from tests.live_server import free_port


def serve(app):
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_config=None,  # uvicorn's lines reach the root logger, where caplog sees them
        http="sathub.server.http_protocol:GuardedHttpToolsProtocol",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, thread


@pytest.mark.parametrize("path", [f"list/{LIST}/export/dev.mbox.gz", "search/export/dev.mbox.gz?q=one%20OR%20three"])
def test_a_database_failing_mid_export_cuts_the_connection(engine, settings, tmp_path, monkeypatch, caplog, path):
    import_fixture(engine, tmp_path)
    monkeypatch.setattr(email_sources, "FIRST_CHUNK", 1)  # one message a chunk: the failure comes after the first
    monkeypatch.setattr(email_sources, "EXPORT_CHUNK", 1)
    real = email_sources.export_chunks

    def failing(*args, **kwargs):
        chunks = real(*args, **kwargs)
        yield next(chunks)
        raise OperationalError("SELECT …", {}, Exception("server closed the connection unexpectedly\ndetail"))

    monkeypatch.setattr(endpoint, "export_chunks", failing)
    site, server, thread = serve(create_app(settings, engine=engine))
    received = b""
    try:
        with caplog.at_level(logging.INFO), httpx.Client() as client:
            with client.stream("GET", f"{site}/archive/{path}") as response:
                assert response.status_code == 200
                with pytest.raises(httpx.RemoteProtocolError):  # the chunked body never ends
                    for piece in response.iter_raw():
                        received += piece
            assert client.get(f"{site}/archive/search?q=one").status_code == 200  # the server goes on
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    # The client holds the first message, and a gzip stream without its end.
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    assert decompressor.decompress(received).startswith(b"From ann@example.com Mon Jan  6 10:00:00 2020\n")
    assert not decompressor.eof
    lines = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(lines) == 1, [record.getMessage() for record in lines]
    assert lines[0].name == "sathub.archive.export" and lines[0].exc_info is None
    message = lines[0].getMessage()
    assert message.startswith("export /archive/") and "OperationalError" in message
    assert "\n" not in message
    assert SLOTS.running == 0
