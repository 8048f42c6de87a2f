"""What the log says of a request, in one place: every answer of 5xx is one line (warning) with
the request and why, a defect's traceback once (error); with the access log on, every answer is
one more line (info) in the Combined Log Format, followed by its duration.

A handler that turns an exception into its 5xx answer (the database away: 503) notes it with
`note_failure`, and this layer logs it with the request, so that no door logs its own 5xx beside
it. An exception no handler answered is logged here with its traceback and answered 500 (by
Starlette's ServerErrorMiddleware, or here when it was raised outside it), and not raised on to the
server, which would log it a second time. Two exceptions are let through: a client gone before its
body was in (server/http_protocol.py logs it; no answer went out), and a failure after an answer of
less than 500 began (no 5xx answered: the server cuts the connection and logs it)."""

from __future__ import annotations

import logging
import re
import time
from functools import lru_cache

from starlette.requests import ClientDisconnect, HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

failures = logging.getLogger("sathub.server")
access = logging.getLogger("sathub.access")

FAILURE = "sathub.failure"  # the scope's key for the exception a handler answered with a 5xx
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# What a log line shows of the request as sent: printable ASCII but `"` and `\`, the rest escaped
# (\xhh) as Apache does, so that no client writes a line break or a quote of its own into the log.
_UNPRINTABLE = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e]")
INTERNAL_ERROR = b"Internal Server Error"


def note_failure(request: HTTPConnection, exc: BaseException) -> None:
    """`exc` is why this request is answered with a 5xx: RequestLog logs it with the request."""
    request.scope[FAILURE] = exc


def shown(raw: bytes | str) -> str:
    text = raw.decode("latin-1") if isinstance(raw, bytes) else raw
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return text
    return _UNPRINTABLE.sub(lambda match: f"\\x{ord(match[0]):02x}", text)


def target(scope: Scope) -> str:
    """The request's path and query, as sent."""
    path = scope.get("raw_path") or scope["path"].encode("utf-8")
    query = scope.get("query_string", b"")
    return shown(path + b"?" + query if query else path)


def client_of(scope: Scope) -> str:
    client = scope.get("client")
    return shown(client[0]) if client else "-"


def one_line(exc: BaseException) -> str:
    """The exception's type and first line, and its cause's (a 503 that says why the database is away)."""
    text = next(iter(str(exc).strip().splitlines()), "")
    said = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return said if exc.__cause__ is None else f"{said} (from {one_line(exc.__cause__)})"


@lru_cache(maxsize=2)
def clf_time(second: int) -> str:
    """`[28/Nov/2026:21:10:03 +0000]`, in UTC (month names in English whatever the locale); made
    once a second."""
    t = time.gmtime(second)
    return f"[{t.tm_mday:02d}/{_MONTHS[t.tm_mon - 1]}/{t.tm_year}:{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} +0000]"


def access_line(scope: Scope, status: int, size: int, now: float, seconds: float) -> str:
    """`client - - [time] "request line" status bytes "referer" "user agent" seconds`."""
    referer = agent = b"-"
    for name, value in scope["headers"]:
        if name == b"referer":
            referer = value
        elif name == b"user-agent":
            agent = value
    request_line = f"{scope['method']} {target(scope)} HTTP/{scope.get('http_version', '1.1')}"
    return (
        f'{client_of(scope)} - - {clf_time(int(now))} "{request_line}" {status} {size or "-"} '
        f'"{shown(referer)}" "{shown(agent)}" {seconds:.3f}'
    )


class RequestLog:
    """The app, with its 5xx answers logged, and with `access_log` every answer."""

    def __init__(self, app: ASGIApp, *, access_log: bool) -> None:
        self.app, self.access_log = app, access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = size = 0
        counted = self.access_log and access.isEnabledFor(logging.INFO)
        started = time.monotonic() if counted else 0.0

        # The body's bytes are counted only for the access log: beside a replayed answer (3.5 µs of
        # the app's time here), each closure and test is a measurable share.
        if counted:

            async def watched(message: Message) -> None:
                nonlocal status, size
                if message["type"] == "http.response.body":
                    size += len(message.get("body", b""))
                elif message["type"] == "http.response.start":
                    status = message["status"]
                await send(message)

        else:

            async def watched(message: Message) -> None:
                nonlocal status
                if message["type"] == "http.response.start":
                    status = message["status"]
                await send(message)

        try:
            await self.app(scope, receive, watched)
        except ClientDisconnect:
            raise
        except Exception as exc:
            if 0 < status < 500:
                raise
            where = (status or 500, scope["method"], target(scope), client_of(scope))
            failures.error("%s %s %s from %s", *where, exc_info=exc)
            if not status:
                await _internal_error(watched)
        else:
            if status >= 500:
                self._failed(scope, status)
        if counted and status:
            access.info(access_line(scope, status, size, time.time(), time.monotonic() - started))

    @staticmethod
    def _failed(scope: Scope, status: int) -> None:
        exc = scope.get(FAILURE)
        where = (status, scope["method"], target(scope), client_of(scope))
        if exc is None:
            failures.warning("%s %s %s from %s", *where)
        elif status == 500:  # a defect: its traceback
            failures.error("%s %s %s from %s: %s", *where, one_line(exc), exc_info=exc)
        else:
            failures.warning("%s %s %s from %s: %s", *where, one_line(exc))


async def _internal_error(send: Send) -> None:
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"%d" % len(INTERNAL_ERROR))]
    await send({"type": "http.response.start", "status": 500, "headers": headers})
    await send({"type": "http.response.body", "body": INTERNAL_ERROR})
