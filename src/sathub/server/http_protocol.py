"""HTTP/1.1 connections that cannot hold a process hostage: uvicorn's httptools protocol with a
limit on the size of a request's headers (431), a time limit for them to arrive (408, whether
they trickle in or never start), and a limit on the connections a process keeps open (503).
Idle keep-alive connections are closed by uvicorn's own keep-alive timeout.

An answer's status line and headers go out with the first piece of its body, in one system call
and one TCP segment: uvicorn writes them as soon as the app starts the response, and that send
(loopback delivery, waking the client) cost as much as the body's."""

from __future__ import annotations

import asyncio
from functools import cache
from typing import cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from sathub.config import Settings


@cache
def _limits() -> Settings:
    """The limits of this process: the serve command hands its settings to workers as SATHUB_*."""
    return Settings.from_env()


def _answer(status: str, message: str) -> bytes:
    body = message.encode()
    return (f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n").encode() + body


TOO_MANY_CONNECTIONS = _answer("503 Service Unavailable", "Too many open connections; try again.")
HEADERS_TOO_LARGE = _answer("431 Request Header Fields Too Large", "The request's headers are too large.")
HEADERS_TOO_SLOW = _answer("408 Request Timeout", "The request's headers did not arrive in time.")


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._awaiting_headers = True
        self._boundary_in_piece = False
        self._header_bytes = 0
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > _limits().max_connections:
            self._refuse(TOO_MANY_CONNECTIONS)
            return
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._awaiting_headers and self._header_timer is None:
            self._arm_header_timer()  # a new request begins on a kept-alive connection
        self._boundary_in_piece = False
        super().data_received(data)
        # Counted only when the whole piece belongs to headers still incomplete: a piece in
        # which headers or a request ended also carries body bytes, which never count.
        if self._awaiting_headers and not self._boundary_in_piece and not self.transport.is_closing():
            self._header_bytes += len(data)
            if self._header_bytes > _limits().max_header_bytes:
                self._refuse(HEADERS_TOO_LARGE)

    def on_headers_complete(self) -> None:
        self._awaiting_headers = False
        self._boundary_in_piece = True
        self._header_bytes = 0
        self._cancel_header_timer()
        previous = self.cycle
        super().on_headers_complete()
        if self.cycle is not previous:  # a new request's cycle, not yet running
            # A duck-typed transport: the cycle calls only what HeadWithBody defines.
            self.cycle.transport = cast(asyncio.Transport, HeadWithBody(self.transport, self.cycle))

    def on_message_complete(self) -> None:
        # Only now may the next bytes be a request's headers: an answer sent before its request
        # was read (a 413) is followed by the rest of that request's body, which is not.
        self._awaiting_headers = True
        self._boundary_in_piece = True
        super().on_message_complete()

    def _arm_header_timer(self) -> None:
        self._header_timer = self.loop.call_later(_limits().header_timeout, self._headers_too_slow)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self._awaiting_headers and not self.transport.is_closing():
            self._refuse(HEADERS_TOO_SLOW)

    def _refuse(self, answer: bytes) -> None:
        self._cancel_header_timer()
        self.transport.write(answer)
        self.transport.close()


class HeadWithBody:
    """The transport as one response cycle sees it: the first write after the response started
    (its status line and headers) waits for the next (its body, or the first piece of it) and
    both go out in one writev. Writes before the start (100 Continue) go out at once, and so
    does the head of an answer to HEAD, which uvicorn follows with no write."""

    __slots__ = ("transport", "cycle", "head", "head_seen")

    def __init__(self, transport: asyncio.Transport, cycle) -> None:
        self.transport, self.cycle = transport, cycle
        self.head: bytes | None = None
        self.head_seen = cycle.scope["method"] == "HEAD"

    def write(self, data: bytes) -> None:
        if self.head is not None:
            self.transport.writelines((self.head, data))
            self.head = None
        elif not self.head_seen and self.cycle.response_started:
            self.head, self.head_seen = data, True
        else:
            self.transport.write(data)

    def close(self) -> None:
        if self.head is not None:  # a response abandoned after its start: as before, the head goes out
            self.transport.write(self.head)
            self.head = None
        self.transport.close()

    def is_closing(self) -> bool:
        return self.transport.is_closing()
