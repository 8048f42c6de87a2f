"""The archive's one HTTP edge: every door of interface B (the read API, Mailman's archiver calls,
the web pages, attachment downloads) is an `ArchiveEndpoint`, and every answer other than 200 is
an `ArchiveError`, raised once and rendered by the door it reached.

The base does what every door does alike: it refuses a method the door does not serve (405, with
`Allow`), turns a database that cannot be reached (or went away under a statement) into a 503,
answers HEAD with the headers GET would have (its Content-Length included) and no body, and works
on a read in its client address's turn (turns.py; what it sends after, such as an export's
stream, is not in the turn). A door says what it answers
(`respond`) and how its errors look (`render_error`: JSON for the API and downloads, with
`check` for Mailman, an HTML page for the web doors of web_door.py)."""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from sathub.archive.turns import Turns
from sathub.db.engines import UNREACHABLE
from sathub.server.request_log import note_failure

NOT_FOUND = "Not found."
FORBIDDEN = "You do not have permission to perform this action."
UNAVAILABLE = "Service temporarily unavailable, try again later."
# On every 403 (a private list, or a call Mailman's door refuses): the answer is no one's to keep,
# so no shared cache ever gives it, or a later answer of that URL, to another client.
PRIVATE_ANSWER = {"Cache-Control": "private, no-store"}
# On every answer of a JSON door and every download: a browser takes the body for its declared type
# only (a JSON body naming an attacker's text is never read as HTML or script).
NOSNIFF = {"X-Content-Type-Options": "nosniff"}
# The reads, which wait for their client address's turn (turns.py); a write (Mailman's archive
# call, a removal's form) never waits behind its sender's reads.
_READS = ("GET", "HEAD")
_NO_TURNS = Turns(0)


class ArchiveError(Exception):
    """An answer other than 200: a status and the text that says why (DRF's `detail`). `check`
    names the check a Mailman call failed (403s of the archiver door); `headers` go on the answer
    whichever door renders it (a 429's Retry-After)."""

    def __init__(
        self, status: int, detail: str = NOT_FOUND, check: str | None = None, headers: dict[str, str] | None = None
    ):
        super().__init__(detail)
        self.status, self.detail, self.check = status, detail, check
        self.headers = headers or {}


class ArchiveEndpoint:
    """ASGI app of one door; Starlette routes every method to it, so that it answers 405 itself."""

    methods: tuple[str, ...] = ("GET", "HEAD")
    unavailable = UNAVAILABLE  # the 503's text

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            self.refuse_early(request)
            if request.method not in self.methods:
                raise ArchiveError(405, self.not_allowed(request.method))
            if request.method in _READS:
                async with _turns(request).of(request.client.host if request.client else ""):
                    response = await self.respond(request)
            else:
                response = await self.respond(request)
        except ArchiveError as error:
            if error.status >= 500:
                note_failure(request, error)
            response = self.render_error(request, error)
            response.headers.update(error.headers)
            if error.status == 403:
                response.headers.update(PRIVATE_ANSWER)
        except UNREACHABLE as exc:  # refused a connection, or lost it under a statement
            note_failure(request, exc)
            response = self.render_error(request, ArchiveError(503, self.unavailable))
        if request.method == "HEAD":
            response.body = b""  # the Content-Length of GET's body stays
        await response(scope, receive, send)

    @property
    def allow(self) -> str:
        return ", ".join(self.methods)

    def refuse_early(self, request: Request) -> None:
        """Raise ArchiveError for what this door refuses before looking at the method."""

    def not_allowed(self, method: str) -> str:
        return f'Method "{method}" not allowed.'

    async def respond(self, request: Request) -> Response:
        raise NotImplementedError

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        raise NotImplementedError


def json_error(status: int, detail: str, allow: str) -> Response:
    """An error as Django REST framework writes one, `{"detail": …}`, whatever was negotiated: the
    paths HyperKitty has no route for, and the downloads. `allow`: the door's methods."""
    return Response(
        orjson.dumps({"detail": detail}),
        status,
        {"Allow": allow, "Vary": "Accept", "Content-Type": "application/json", **NOSNIFF},
    )


def whole_number(text: str | None) -> int | None:
    """A query parameter's number as Django REST framework reads one, Python's int() (" 5", "+5"
    and "1_0" are numbers too), or None when it is absent or not a number."""
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _turns(request: Request) -> Turns:
    """The process's turns (app.py makes them from SATHUB_ARCHIVE_TURNS); none for a door served
    by an app that has none."""
    return getattr(request.app.state, "archive_turns", _NO_TURNS)
