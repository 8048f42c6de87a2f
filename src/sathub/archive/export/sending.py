"""An export's answer on the wire: a streamed 200 that gives its slot back however it ends, and
cuts its connection when it cannot end well.

- **A client that takes nothing for SATHUB_EXPORT_WRITE_TIMEOUT seconds** (30 by default), while
  a piece waits to be sent or once the last is out, is cut: one info line, the connection aborted,
  the slot given back. Without it, a client that asks and never reads held its slot, a chunk in
  memory and its connection for as long as it liked (four of them held every export slot of a
  process). "Takes nothing" is read off the bytes the client has not taken: those the server's
  transport still holds, and those the kernel sent that the client has not acknowledged
  (TIOCOUTQ, Linux), so a slow client that keeps reading is not cut, however long a piece takes
  to go: at a 2 s deadline one reading 8 KB/s got its whole export, where counting the transport's
  buffer alone cut one reading 64 KB/s (docs/archive-export.md). Under a server without the
  connection's hooks (server/connection_hooks.py) those bytes are not known: one send that waits
  the whole deadline is the sign (the stream's rule, status/stream/door.py).
- **A database that fails once the answer has begun** (no error page can follow, and an answer
  that ends would look like a whole download) is one warning line, and the connection is cut."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import struct
import termios
from collections.abc import Awaitable, Callable
from functools import partial

from starlette.requests import ClientDisconnect
from starlette.responses import StreamingResponse
from starlette.types import Message, Receive, Scope, Send

from sathub.db.engines import DatabaseError
from sathub.server.connection_hooks import CONNECTION_HOOKS

# How often a waiting send looks at what the client took: a cut comes at most this late. A send so
# watched (a task and a timer) costs 34 us more than a bare one, once per chunk of 500 messages.
POLL_SECONDS = 0.25
log = logging.getLogger("sathub.archive.export")

Unsent = Callable[[], int]


class Stalled(Exception):
    """The client took nothing for the whole deadline."""


class ExportAnswer(StreamingResponse):
    """A streamed export, its slot given back by `release` however it ends (done, failed, cut, or
    cancelled because the client went away before or while it was sent)."""

    def __init__(self, body, headers: dict[str, str], release: Callable[[], None], write_timeout: int) -> None:
        super().__init__(body, 200, headers)
        self.release, self.write_timeout = release, write_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hooks = scope.get("extensions", {}).get(CONNECTION_HOOKS)
        unsent = _unsent_bytes(hooks.transport) if hooks is not None else _unknown
        try:
            await super().__call__(scope, receive, partial(_send_in_time, send, unsent, self.write_timeout))
            if hooks is not None:  # the last piece is sent: the slot is held until the server holds none of it
                await _in_time(_drained(hooks.transport), unsent, self.write_timeout)
        except ClientDisconnect:
            pass  # the client went away: the export stopped with the send that failed; nobody to answer
        except Stalled:
            client = scope.get("client")
            log.info(
                "export %s cut: %s took nothing for %d s",
                scope.get("path"),
                client[0] if client else "the client",
                self.write_timeout,
            )
            await cut(scope)
        except DatabaseError as error:
            first_line = (str(error).strip().splitlines() or [""])[0]
            log.warning(
                "export %s cut: the database failed (%s: %s)", scope.get("path"), type(error).__name__, first_line
            )
            await cut(scope)
        finally:
            self.release()


async def cut(scope: Scope) -> None:
    """Abort the connection of the answer under way, when the server offers to (`sathub serve`'s
    protocol, server/http_protocol.py); uvicorn sees the connection lost and says nothing more. A
    server without the hook sees the app return before the answer's end, and closes it itself."""
    hooks = scope.get("extensions", {}).get(CONNECTION_HOOKS)
    if hooks is not None:
        hooks.abort()
        await asyncio.sleep(0)  # the transport's connection_lost runs before the app returns


async def _send_in_time(send: Send, unsent: Unsent, seconds: int, message: Message) -> None:
    await _in_time(send(message), unsent, seconds)


async def _in_time(waiting: Awaitable[None], unsent: Unsent, seconds: int) -> None:
    """Wait for `waiting`; Stalled when `unsent()` has not gone down for `seconds` meanwhile."""
    task = asyncio.ensure_future(waiting)
    loop = asyncio.get_running_loop()
    try:
        lowest, since = unsent(), loop.time()
        while not (await asyncio.wait((task,), timeout=POLL_SECONDS))[0]:
            now = unsent()
            if now < lowest:
                lowest, since = now, loop.time()
            elif loop.time() - since >= seconds:
                raise Stalled
        task.result()
    finally:
        task.cancel()


async def _drained(transport: asyncio.Transport) -> None:
    """Until the transport holds none of the answer's bytes (it has handed them to the kernel)."""
    while transport.get_write_buffer_size():
        await asyncio.sleep(POLL_SECONDS)


def _unknown() -> int:
    return 0


def _unsent_bytes(transport: asyncio.Transport) -> Unsent:
    """The bytes written to `transport` that its client has not taken: in the transport's buffer,
    and in the kernel's send queue (sent, not yet acknowledged; Linux, else not counted)."""
    sock = transport.get_extra_info("socket")

    def unsent() -> int:
        queued = transport.get_write_buffer_size()
        with contextlib.suppress(OSError, ValueError):  # not Linux, or the socket just closed
            queued += struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
        return queued

    return unsent
