"""The socket side of a line protocol's listener (the archive's NNTP server, archive/nntp/): one
session per connection, fed one command line at a time, with the limits every connection meets.

- A line longer than `max_line` octets (its line end included) is answered `too_long` and the rest
  of it read and dropped: the client gets an answer, never a connection reset.
- A connection that sends nothing for `idle_timeout` seconds is told `idle` and closed.
- At most `max_connections` connections at once, and `per_address` from one address (0: no share
  of its own); one more is told `busy` and closed.
- Commands sent ahead (pipelined) are answered in their order, each answer written before the
  next line is read: a client that stops reading stops its own session, nobody else's."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger("sathub.server")


class LineSession(Protocol):
    closing: bool  # True once the session has answered its last line (a QUIT)

    async def answer(self, line: bytes) -> bytes: ...


@dataclass(frozen=True, slots=True)
class LineLimits:
    max_line: int
    idle_timeout: float
    max_connections: int
    per_address: int


@dataclass(frozen=True, slots=True)
class Replies:
    """What the listener itself says: on connecting, to a line too long, to a connection over the
    limits, and before closing an idle one."""

    greeting: bytes
    too_long: bytes
    busy: bytes
    idle: bytes


class _LineTooLong(Exception):
    pass


async def _read_line(reader: asyncio.StreamReader) -> bytes:
    """The next line without its line end; _LineTooLong once a longer line than the reader's limit
    has been read through its end; IncompleteReadError at the end of the stream."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError as overrun:
        await reader.readexactly(overrun.consumed)
        while True:
            try:
                await reader.readuntil(b"\n")
                raise _LineTooLong from None
            except asyncio.LimitOverrunError as more:
                await reader.readexactly(more.consumed)
    return line.rstrip(b"\r\n")


class LineServer:
    """Sessions from `new_session` served on the connections of one listening socket."""

    def __init__(self, new_session: Callable[[], LineSession], limits: LineLimits, replies: Replies) -> None:
        self.new_session = new_session
        self.limits = limits
        self.replies = replies
        self.open: dict[asyncio.StreamWriter, asyncio.Task] = {}  # each connection's task
        self.per_address: Counter[str] = Counter()
        self.server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> None:
        # reuse_port: every worker process of `sathub serve --workers N` listens on the same port
        # and the kernel spreads the connections among them.
        # The reader's limit counts the octets before the LF: max_line counts the LF too.
        limit = self.limits.max_line - 1
        self.server = await asyncio.start_server(self._serve, host, port, limit=limit, reuse_port=True)

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening, close every connection and wait for their sessions to end."""
        if self.server is not None:
            self.server.close()
        tasks = list(self.open.values())
        for writer in list(self.open):
            writer.transport.abort()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.server is not None:
            await self.server.wait_closed()

    def _admitted(self, address: str) -> bool:
        limits = self.limits
        if len(self.open) >= limits.max_connections:
            return False
        return not limits.per_address or self.per_address[address] < limits.per_address

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = peer[0] if isinstance(peer, tuple) else str(peer)
        if not self._admitted(address):
            writer.write(self.replies.busy)
            with contextlib.suppress(OSError):
                await writer.drain()
            writer.close()
            return
        task = asyncio.current_task()
        assert task is not None  # asyncio runs each connection's callback as a task
        self.open[writer] = task
        self.per_address[address] += 1
        try:
            await self._converse(reader, writer)
        except (OSError, asyncio.IncompleteReadError):
            pass  # the client went away
        finally:
            del self.open[writer]
            self.per_address[address] -= 1
            if not self.per_address[address]:
                del self.per_address[address]
            writer.close()

    async def _converse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = self.new_session()
        writer.write(self.replies.greeting)
        await writer.drain()
        while not session.closing:
            try:
                async with asyncio.timeout(self.limits.idle_timeout):  # wait_for may lose a cancellation
                    line = await _read_line(reader)
            except TimeoutError:
                writer.write(self.replies.idle)
                await writer.drain()
                return
            except _LineTooLong:
                writer.write(self.replies.too_long)
            else:
                writer.write(await session.answer(line))
            await writer.drain()
