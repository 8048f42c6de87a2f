"""/api/v2's hits and 304s replayed before the framework, as replay.py replays version 1's.

A GET of /api/v2 (the stream aside) depends on its path and query, the scheme and host its links
are built from, the data revision and the time (to the day or the hour, read to the second). So a
200 made within one second at one revision is the answer to every identical request of that
second while the revision stands: sent again as the same two ASGI messages, or, when the
request's If-None-Match names its ETag, as a bodiless 304 with the same headers, before
middleware, routing and handler (which cost more than the answer itself: bench/README.md).
The revision is read first, as every cached answer's is (cache.py): nothing is older than it."""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sathub.db.engines import DatabaseUnavailable
from sathub.server.hosts import host_header
from sathub.status import times
from sathub.status.cache import AnswerCache

REPLAYABLE = ("status", "satellites", "reports", "grid-squares", "openapi.json")
KEPT = 256
LARGEST = 8 * 2**20  # a 30-day status grid of a busy catalog is a few MB
_DROPPED_FROM_304 = (b"content-type", b"content-length")


class Kept:
    """An answer made at `revision` within `second`: its 200 (None when the handler answered only
    a 304, which tells the tag but not the body) and the 304 of its tag."""

    __slots__ = ("body", "etag", "not_modified", "revision", "second", "start")

    def __init__(self, revision: int, second: datetime, start: Message, body: Message | None, etag: bytes):
        self.revision, self.second, self.etag = revision, second, etag
        self.start: Message | None = start if body is not None else None
        self.body: Message | None = body
        headers = [(name, value) for name, value in start["headers"] if name not in _DROPPED_FROM_304]
        self.not_modified = {"type": "http.response.start", "status": 304, "headers": headers}


def _if_none_match(scope: Scope) -> bytes | None:
    for name, value in scope["headers"]:
        if name == b"if-none-match":
            return value
    return None


def _matches(header: bytes, etag: bytes) -> bool:
    """As v2_answers.etag_matches: `*`, or any tag of the list, compared weakly."""
    if header.strip() == b"*":
        return True
    return any(tag.strip().removeprefix(b"W/") == etag for tag in header.split(b","))


class ReplayedV2:
    def __init__(self, app: ASGIApp, answers: AnswerCache, prefix: str = "") -> None:
        self.app, self.answers = app, answers
        self.paths = frozenset(f"{prefix}/api/v2/{name}" for name in REPLAYABLE)
        self._kept: OrderedDict[tuple, Kept] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"] not in self.paths:
            await self.app(scope, receive, send)
            return
        try:
            revision = self.answers.revision()
        except DatabaseUnavailable:  # the handler answers the documented 503
            await self.app(scope, receive, send)
            return
        second = times.utc_now()
        host: bytes | tuple | None = host_header(scope)
        if host is None:
            host = tuple(scope.get("server") or ())
        key = (scope["path"], scope["query_string"], scope["scheme"], host)
        kept = self._kept.get(key)
        if kept is not None and kept.revision == revision and kept.second == second:
            condition = _if_none_match(scope)
            if condition is not None and _matches(condition, kept.etag):
                await send(kept.not_modified)
                await send({"type": "http.response.body", "body": b""})
                return
            if kept.start is not None and kept.body is not None:
                await send(kept.start)
                await send(kept.body)
                return
        sent: list[Message] = []

        async def recording(message: Message) -> None:
            sent.append(message)
            await send(message)

        await self.app(scope, receive, recording)
        etag = _etag_of_whole(sent)
        if etag is not None and times.utc_now() == second:
            body = sent[1] if sent[0]["status"] == 200 else None
            self._kept[key] = Kept(revision, second, sent[0], body, etag)
            self._kept.move_to_end(key)
            if len(self._kept) > KEPT:
                self._kept.popitem(last=False)


def _etag_of_whole(sent: list[Message]) -> bytes | None:
    """The ETag of a whole 200 or 304 answer in two messages, else None (errors are not kept)."""
    if len(sent) != 2 or sent[0]["status"] not in (200, 304) or sent[1].get("more_body"):
        return None
    if len(sent[1].get("body", b"")) > LARGEST:
        return None
    return next((value for name, value in sent[0]["headers"] if name == b"etag"), None)
