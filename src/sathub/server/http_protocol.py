"""HTTP/1.1 connections that cannot hold a process hostage: uvicorn's httptools protocol with
- a limit on the size of a request's headers (431): its request line and header lines up to and
  including the blank line that ends them, counted to the byte however they are cut into reads
  (empty lines before a request line, which HTTP lets a server skip, are skipped, not counted);
- a time limit for the headers to arrive once a request begins (408, whether they trickle in or
  never start), and one for its body once the headers are in (408; an answer already begun, such
  as a 413 sent before the body, is cut instead);
- a limit on the connections a process keeps open, and on the share of them one client address
  holds, at most a quarter of them (503; trusted proxies, whose clients are many, have no share;
  config.Settings.connection_share).
Idle keep-alive connections are closed by uvicorn's own keep-alive timeout. A refusal owed to a
request pipelined behind others goes out after their answers.

A client that goes away before its request's body is in (Starlette's ClientDisconnect, whichever
reader meets it) is one info line, not uvicorn's ERROR traceback: it is no server error.

An answer's status line and headers go out with the first piece of its body, in one system call
and one TCP segment: uvicorn writes them as soon as the app starts the response, and that send
(loopback delivery, waking the client) cost as much as the body's."""

from __future__ import annotations

import asyncio
import logging
import weakref
from functools import cache, lru_cache
from typing import TYPE_CHECKING, ClassVar, cast

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from sathub.config import Settings, address_in, parse_networks
from sathub.server.connection_hooks import CONNECTION_HOOKS, ConnectionHooks, HeadWithBody

if TYPE_CHECKING:
    from uvicorn._types import ASGI3Application

log = logging.getLogger("uvicorn.error")  # beside uvicorn's own lines, at the level `sathub serve` sets

BLANK_LINE = b"\r\n\r\n"  # the end of the last header line (or of the request line) and the blank line
CRLF = b"\r\n"  # the parser is strict: CRLF ends every line, a bare CR or LF is refused (400)


@cache
def _limits() -> Settings:
    """The limits of this process: the serve command hands its settings to workers as SATHUB_*."""
    return Settings.from_env()


@lru_cache(maxsize=4096)
def _without_share(host: str) -> bool:
    """Whether a client address is a trusted proxy's, which holds connections for many clients."""
    return address_in(host, parse_networks(_limits().trusted_proxies))


def _answer(status: str, message: str) -> bytes:
    body = message.encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    ).encode() + body


TOO_MANY_CONNECTIONS = _answer("503 Service Unavailable", "Too many open connections; try again.")
HEADERS_TOO_LARGE = _answer("431 Request Header Fields Too Large", "The request's headers are too large.")
HEADERS_TOO_SLOW = _answer("408 Request Timeout", "The request's headers did not arrive in time.")
BODY_TOO_SLOW = _answer("408 Request Timeout", "The request's body did not arrive in time.")


class HangUpsLogged:
    """The app, with a client gone before its request's body is in logged as one info line."""

    __slots__ = ("app",)

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:
            client = scope.get("client")
            log.info(
                '%s - "%s %s" closed before its body was in',
                f"{client[0]}:{client[1]}" if client else "-",
                scope.get("method"),
                scope.get("path"),
            )


@cache
def _hang_ups_logged(app: ASGIApp) -> HangUpsLogged:
    return HangUpsLogged(app)  # one per process, not one per connection


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    # The connections each client address holds open in this process (its one event loop).
    open_per_client: ClassVar[dict[str, int]] = {}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.app = cast("ASGI3Application", _hang_ups_logged(self.app))
        self._awaiting_headers = True
        self._header_bytes = 0  # of the request awaited, from its request line's first byte
        self._header_tail = b""  # their last 3 bytes: the blank line may end in the next read
        self._body_left: int | None = None  # of a body with a Content-Length; None: chunked, or unknown
        self._header_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._client_host: str | None = None  # counted in open_per_client
        self._refusal: bytes | None = None  # owed after the answers to earlier requests
        self._hooks: ConnectionHooks | None = None  # made at its first request

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        limits = _limits()
        if len(self.connections) > limits.max_connections:
            self._refuse(TOO_MANY_CONNECTIONS, owed=False)
            return
        share = limits.connection_share
        if share and self.client and not _without_share(self.client[0]):
            host = self._client_host = self.client[0]
            held = self.open_per_client[host] = self.open_per_client.get(host, 0) + 1
            if held > share:
                self._refuse(TOO_MANY_CONNECTIONS, owed=False)
                return
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timers()
        if (host := self._client_host) is not None:
            self._client_host = None
            held = self.open_per_client[host] - 1
            if held:
                self.open_per_client[host] = held
            else:
                del self.open_per_client[host]
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if (
            self._awaiting_headers
            and not self._header_bytes
            and data.endswith(BLANK_LINE)
            and data.find(BLANK_LINE) == len(data) - 4
            and data[0] not in CRLF
            and len(data) <= _limits().max_header_bytes
            and self._refusal is None
        ):
            # The usual read: one request's headers, whole, within the limit, and nothing else. No
            # header timer is armed: they are all in.
            if self._feed(data, 0, len(data)) and not self._awaiting_headers:  # a body follows
                self._body_left = self._declared_length()
                self._arm_body_timer()
            return
        if self._refusal is None:
            self._read(data)

    def _read(self, data: bytes) -> None:
        """The parser reads a request's headers up to their blank line, and a body of known length
        to its end, as pieces of their own: whatever follows is counted from its own first byte."""
        limit = _limits().max_header_bytes
        start, size = 0, len(data)
        while start < size:
            if self._awaiting_headers:
                if self._header_bytes:  # begun in an earlier read
                    end = self._end_of_headers(data, start)
                else:
                    while start < size and data[start] in CRLF:
                        start += 1  # an empty line before a request line
                    if start == size:
                        return
                    end = data.find(BLANK_LINE, start)
                    end = end + 4 if end >= 0 else -1
                taken = (size if end < 0 else end) - start
                if self._header_bytes + taken > limit:
                    self._refuse(HEADERS_TOO_LARGE, owed=self._answer_owed())
                    return
                self._header_bytes += taken  # until the headers are complete
                if end < 0:
                    if self._header_timer is None:
                        self._arm_header_timer()  # a request begins (on a kept-alive connection)
                    self._header_tail = (self._header_tail + data[max(start, size - 3) :])[-3:]
                    self._feed(data, start, size)
                    return
                if not self._feed(data, start, end):
                    return
                if not self._awaiting_headers:  # a body follows
                    self._body_left = self._declared_length()
            elif self._body_left:
                end = min(size, start + self._body_left)
                self._body_left -= end - start
                if not self._feed(data, start, end):
                    return
            else:
                # A chunked body ends where the parser finds it. A request begun after it in the same
                # slice is counted from there (_begun_after_body); slices of at most the limit keep one
                # begun and ended in a slice within the limit.
                end = min(size, start + limit)
                if not self._feed(data, start, end):
                    return
                if self._awaiting_headers:
                    self._header_bytes, self._header_tail = self._begun_after_body(data, start, end)
                    if self._header_bytes and self._header_timer is None:
                        self._arm_header_timer()
            start = end
        if not self._awaiting_headers:
            self._arm_body_timer()  # a body still to come

    def _feed(self, data: bytes, start: int, end: int) -> bool:
        """The parser reads data[start:end]; False once the connection closes (a malformed request:
        400) or is upgraded (a WebSocket), when the rest is not read."""
        piece = data if start == 0 and end == len(data) else memoryview(data)[start:end]
        super().data_received(piece)  # type: ignore[arg-type]  # httptools reads a memoryview as bytes
        if self.transport.is_closing():
            return False
        if self.parser.should_upgrade():
            self._cancel_timers()
            return False
        return True

    def _end_of_headers(self, data: bytes, start: int) -> int:
        """Where the headers of a request begun in an earlier read end in data (just past their
        blank line), or -1: the blank line may have begun in that read too."""
        tail = self._header_tail
        found = (tail + data[start : start + 3]).find(BLANK_LINE)
        if found >= 0:
            return start + found + 4 - len(tail)
        found = data.find(BLANK_LINE, start)
        return found + 4 if found >= 0 else -1

    def _declared_length(self) -> int | None:
        """The body's Content-Length; None when chunked (the parser refuses any other request body)."""
        length = None
        for name, value in self.headers:
            if name == b"transfer-encoding":
                return None
            if name == b"content-length":
                length = int(value)
        return length

    @staticmethod
    def _begun_after_body(data: bytes, start: int, end: int) -> tuple[int, bytes]:
        """The header bytes so far (and their last 3) of a request begun in data[start:end] after a
        chunked body ended there. Its headers hold no blank line yet, so it begins after the slice's
        last one (a chunked body ends with one), past any empty lines. Behind a body with a
        Content-Length also begun in the slice, the tail of that body would count too: refused
        early, never late."""
        last = data.rfind(BLANK_LINE, start, end)
        begin = start if last < 0 else last + 4
        while begin < end and data[begin] in CRLF:
            begin += 1
        return end - begin, data[max(begin, end - 3) : end]

    def on_headers_complete(self) -> None:
        self._awaiting_headers = False
        self._header_bytes = 0
        self._header_tail = b""
        self._cancel_header_timer()
        previous = self.cycle
        super().on_headers_complete()
        if self.cycle is not previous:  # a new request's cycle, not yet running
            # A duck-typed transport: the cycle calls only what HeadWithBody defines.
            self.cycle.transport = cast(asyncio.Transport, HeadWithBody(self.transport, self.cycle))
            if self._hooks is None:
                self._hooks = ConnectionHooks(self.transport)
            self._hooks.on_shutdown = None
            self._hooks.cycle = weakref.ref(self.cycle)
            extensions = cast(dict, self.cycle.scope.setdefault("extensions", {}))
            extensions[CONNECTION_HOOKS] = self._hooks

    def shutdown(self) -> None:
        if (
            self.cycle is not None
            and not self.cycle.response_complete
            and self._hooks is not None
            and self._hooks.on_shutdown is not None
        ):
            self._hooks.on_shutdown()  # a long answer ends itself, cleanly
        super().shutdown()

    def on_message_complete(self) -> None:
        # Only now may the next bytes be a request's headers: an answer sent before its request
        # was read (a 413) is followed by the rest of that request's body, which is not.
        self._awaiting_headers = True
        self._cancel_body_timer()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        last = not self.pipeline
        super().on_response_complete()
        if last and self._refusal is not None and not self.transport.is_closing():
            self.transport.write(self._refusal)  # the answers owed before it have gone out
            self.transport.close()

    def _arm_header_timer(self) -> None:
        self._header_timer = self.loop.call_later(_limits().header_timeout, self._headers_too_slow)

    def _arm_body_timer(self) -> None:
        if self._body_timer is None:
            self._body_timer = self.loop.call_later(_limits().body_timeout, self._body_too_slow)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _cancel_body_timer(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _cancel_timers(self) -> None:
        self._cancel_header_timer()
        self._cancel_body_timer()

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self._awaiting_headers and not self.transport.is_closing():
            self._refuse(HEADERS_TOO_SLOW, owed=self._answer_owed())

    def _body_too_slow(self) -> None:
        self._body_timer = None
        cycle = self.cycle
        if self._awaiting_headers or self.transport.is_closing():
            return
        if cycle.response_started:  # its answer has begun (a 413 before the body): it cannot become a 408
            self.transport.close()
            return
        cycle.disconnected = True  # the app, if it runs, reads http.disconnect and answers nowhere
        cycle.message_event.set()
        queued = bool(self.pipeline) and self.pipeline[0][0] is cycle
        if queued:  # pipelined behind requests still being answered: it never runs
            self.pipeline.popleft()
        self._refuse(BODY_TOO_SLOW, owed=queued)

    def _answer_owed(self) -> bool:
        """Whether an earlier request of this connection is still being answered (it was pipelined)."""
        return self.cycle is not None and not self.cycle.response_complete

    def _refuse(self, answer: bytes, *, owed: bool) -> None:
        """Answer and close; when answers to earlier requests are `owed`, after them."""
        self._cancel_timers()
        if owed:
            self._refusal = answer
            self.flow.pause_reading()
        else:
            self.transport.write(answer)
            self.transport.close()
