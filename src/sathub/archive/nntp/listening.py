"""The NNTP listener of `sathub serve --nntp-port N` (off by default): started with the app in
every worker process, on the same port (server/line_server.py), and stopped with it. Plain TCP:
TLS (NNTPS on 563, or STARTTLS) is a TLS-terminating proxy's work in front of it
(docs/archive-nntp.md, "TLS")."""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

from sathub.archive.nntp.reads import Site
from sathub.archive.nntp.session import GREETING, Session
from sathub.config import Settings, parse_group_renames
from sathub.db.engines import Engine
from sathub.server.line_server import LineLimits, LineServer, Replies

log = logging.getLogger("sathub.archive.nntp")

# RFC 3977 3.1: a command line is at most 512 octets, its CRLF included.
MAX_COMMAND_LINE = 512
REPLIES = Replies(
    greeting=GREETING,
    too_long=b"501 Command line longer than 512 octets\r\n",
    busy=b"400 Too many connections; try again later\r\n",
    idle=b"400 Idle for too long; closing\r\n",
)


def server_name(settings: Settings) -> str:
    """The name in articles' Xref and Path: the public base URL's host, else this machine's."""
    return (urlsplit(settings.base_url).hostname if settings.base_url else None) or socket.gethostname()


def nntp_server(settings: Settings, engine: Engine) -> LineServer:
    """The listener's sessions and limits, not listening yet."""
    renames = parse_group_renames(settings.nntp_group_names)
    site = Site(engine, server_name(settings), settings.nntp_max_range, renames)
    limits = LineLimits(
        max_line=MAX_COMMAND_LINE,
        idle_timeout=settings.nntp_idle_timeout,
        max_connections=settings.max_connections,
        per_address=settings.connection_share,
    )
    return LineServer(lambda: Session(site), limits, REPLIES)


@asynccontextmanager
async def nntp_listening(settings: Settings, engine: Engine) -> AsyncIterator[LineServer | None]:
    """While the app serves: the NNTP listener on settings.nntp_port (None when that is 0)."""
    if not settings.nntp_port:
        yield None
        return
    server = nntp_server(settings, engine)
    await server.start(settings.host, settings.nntp_port)
    log.info("Serving NNTP on %s:%s", settings.host, server.port)
    try:
        yield server
    finally:
        await server.stop()
