"""A real NNTP listener of the archive on 127.0.0.1 (an event loop in a thread of its own, as in
`sathub serve`), for the protocol tests; and a message archived live, as Mailman's call does."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from sathub import db
from sathub.archive.mail.dates import utc_now
from sathub.archive.mailman import live_ingest
from sathub.archive.nntp.listening import nntp_server
from sathub.archive.store import lists
from sathub.config import Settings

SERVER = "news.example"  # the host of the settings' base URL: articles' Xref and Path name it


@contextmanager
def listening(engine, **settings) -> Iterator[int]:
    """The port of a listener serving `engine`'s archive until the block ends."""
    chosen = replace(Settings(database_url="unused", base_url=f"https://{SERVER}"), **settings)
    loop = asyncio.new_event_loop()
    started = threading.Event()
    stop = asyncio.Event()  # made outside the loop: Python 3.10+ binds it on first use
    port: list[int] = []

    async def serve() -> None:
        server = nntp_server(chosen, engine)
        await server.start("127.0.0.1", 0)  # a free port
        port.append(server.port)
        started.set()
        try:
            await stop.wait()
        finally:
            await server.stop()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    started.wait(10)
    try:
        yield port[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()


def archive_live(engine, data: bytes, address: str = "dev@example.org") -> live_ingest.Stored:
    """Archive one message as Mailman's archive call does, creating the list when it is new."""
    email = live_ingest.parse(data)
    with db.connect(engine, write=True) as conn:
        lists.find_list(conn, address) or lists.create_list(conn, address, {"created_at": utc_now()})
        return live_ingest.store(conn, address, email)
