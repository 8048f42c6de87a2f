"""What an answer may ask of its connection, beyond ASGI's send (server/http_protocol.py offers
it): the hooks of a long answer (shutdown, abort, a writer of its body's pieces straight to the
connection) and the head of an answer written with the first piece of its body."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable

from uvicorn.protocols.http.httptools_impl import RequestResponseCycle


class ConnectionHooks:
    """What a long answer (the status stream, status/stream/door.py) may ask of its connection,
    offered in `scope["extensions"][CONNECTION_HOOKS]`: to be told when the server shuts down
    (`on_shutdown`; uvicorn would otherwise wait for the answer to end for ever), to abort the
    connection (a client that stopped reading: close() would wait for its unread bytes), and a
    writer of its body's pieces straight to the connection (`body_writer`)."""

    __slots__ = ("cycle", "on_shutdown", "transport")

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.on_shutdown: Callable[[], None] | None = None
        # Of the request last begun, weakly: its scope refers to these hooks.
        self.cycle: weakref.ref[RequestResponseCycle] | None = None

    def abort(self) -> None:
        self.transport.abort()

    def body_writer(self) -> BodyWriter:
        """For the answer being sent (call it from the app, once it has sent its head)."""
        cycle = self.cycle() if self.cycle is not None else None
        assert cycle is not None  # the app's request is running
        return BodyWriter(cycle)


def chunk(body: bytes) -> bytes:
    """A non-empty piece of a body framed as an HTTP/1.1 chunk, as uvicorn's send frames it."""
    return b"%x\r\n%b\r\n" % (len(body), body)


class BodyWriter:
    """Writes pieces of a chunked answer's body to its connection at once, as the answer's own
    send would write them, without the send: no task woken, no await, no middleware's wrapper.
    The stream's heartbeats (5,000 subscribers: 333 a second) and an event fanned out to many
    subscribers (one framed chunk, written to each connection) cost a callback each instead of a
    task's turn through Starlette and uvicorn.

    `write` takes a piece framed once by `chunk` and writes it only when send would have written
    it at once: the head is out or goes with it (HeadWithBody), the body is chunked and not
    ended, the client is connected, and writing is not paused (the client reads too slowly: its
    bytes then go through send, which waits for the buffer to drain). Otherwise it writes nothing
    and answers False. The caller writes only between its own sends, never during one."""

    __slots__ = ("cycle",)

    def __init__(self, cycle: RequestResponseCycle) -> None:
        self.cycle = cycle

    def write(self, chunked: bytes) -> bool:
        cycle = self.cycle
        if (
            not cycle.chunked_encoding
            or cycle.response_complete
            or cycle.disconnected
            or cycle.flow.write_paused
            or cycle.transport.is_closing()
        ):
            return False
        cycle.transport.write(chunked)
        return True


CONNECTION_HOOKS = "sathub.connection"


class HeadWithBody:
    """The transport as one response cycle sees it: the first write after the response started
    (its status line and headers) waits for the next (its body, or the first piece of it) and
    both go out in one writev. Writes before the start (100 Continue) go out at once, and so
    does the head of an answer to HEAD, which uvicorn follows with no write.

    It refers to its cycle weakly (the cycle refers to it): a reference cycle would keep every
    answered request's cycle, scope and transport (and a stream's subscriber: 27 objects each)
    until a collection of the cyclic collector, the long-lived streams' until a full one."""

    __slots__ = ("cycle", "head", "head_seen", "transport")

    def __init__(self, transport: asyncio.Transport, cycle) -> None:
        self.transport, self.cycle = transport, weakref.ref(cycle)
        self.head: bytes | None = None
        self.head_seen = cycle.scope["method"] == "HEAD"

    def write(self, data: bytes) -> None:
        if self.head is not None:
            self.transport.writelines((self.head, data))
            self.head = None
        elif not self.head_seen and self._started():
            self.head, self.head_seen = data, True
        else:
            self.transport.write(data)

    def _started(self) -> bool:
        cycle = self.cycle()  # alive: it is writing
        return cycle is not None and cycle.response_started

    def close(self) -> None:
        if self.head is not None:  # a response abandoned after its start: as before, the head goes out
            self.transport.write(self.head)
            self.head = None
        self.transport.close()

    def is_closing(self) -> bool:
        return self.transport.is_closing()
