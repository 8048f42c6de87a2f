"""Whole answers of the read-only JSON endpoints, replayed without the framework.

A GET of catalog, reports, summary, statuses, satellites or sat_info depends on nothing but its
path and query, the scheme and host its links are built from, the data revision and the current
second (times.utc_now reads time to the second, as PHP's time() does). So a 200 answer made within
one second at one revision is the answer to every identical request arriving in that second while
the revision stands: it is sent again as the same two ASGI messages, before middleware, routing and
handler, which cost as much as the HTTP server itself (docs/design.md, "Hits are replayed before
the framework"). Version 1's is the app's second layer, inside /api/v2's (api/v2/replay.py);
both are outside every middleware (app.SathubApp)."""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sathub.db.engines import DatabaseUnavailable
from sathub.server.hosts import host_header
from sathub.status import times
from sathub.status.cache import AnswerCache

REPLAYABLE = ("catalog.php", "reports.php", "summary.php", "statuses.php", "satellites.php", "sat_info.php")
KEPT = 256  # identical requests: a handful per endpoint in practice, bounded against crafted ones
LARGEST = 2**20  # bytes of one kept body (reports.php at limit=500 is ~155 kB)


class Replayed:
    """The layer's common part: the request's identity, the revision and second it was answered
    at, and a bounded table of kept answers. `keep` says what of an answer to keep (None: nothing),
    `replay` sends a kept one if it answers the request (False: the handler answers it)."""

    largest = LARGEST

    def __init__(self, app: ASGIApp, answers: AnswerCache, paths: frozenset[str]) -> None:
        self.app, self.answers, self.paths = app, answers, paths
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
        if host is None:  # links are built from the server's own address (web.site_url)
            host = tuple(scope.get("server") or ())
        key = (scope["path"], scope["query_string"], scope["scheme"], host)
        kept = self._kept.get(key)
        if (
            kept is not None
            and (kept.revision, kept.second) == (revision, second)
            and await self.replay(kept, scope, send)
        ):
            return
        sent: list[Message] = []

        async def recording(message: Message) -> None:
            sent.append(message)
            await send(message)

        await self.app(scope, receive, recording)
        # Kept only if the handler ran within `second`, so that its clock read that second too.
        if times.utc_now() == second and _whole(sent, self.largest):
            entry = self.keep(sent, revision, second)
            if entry is not None:
                self._kept[key] = entry
                self._kept.move_to_end(key)
                if len(self._kept) > KEPT:
                    self._kept.popitem(last=False)

    def keep(self, sent: list[Message], revision: int, second: datetime) -> Kept | None:
        raise NotImplementedError

    async def replay(self, kept: Kept, scope: Scope, send: Send) -> bool:
        raise NotImplementedError


class Kept:
    """An answer's two messages, made at `revision` within `second`."""

    __slots__ = ("body", "revision", "second", "start")

    def __init__(self, revision: int, second: datetime, start: Message | None, body: Message | None) -> None:
        self.revision, self.second, self.start, self.body = revision, second, start, body


class ReplayedAnswers(Replayed):
    """Version 1's: whole 200s, sent again as they were."""

    def __init__(self, app: ASGIApp, answers: AnswerCache, prefix: str = "") -> None:
        super().__init__(app, answers, frozenset(f"{prefix}/api/v1/{name}" for name in REPLAYABLE))

    def keep(self, sent: list[Message], revision: int, second: datetime) -> Kept | None:
        return Kept(revision, second, sent[0], sent[1]) if sent[0]["status"] == 200 else None

    async def replay(self, kept: Kept, scope: Scope, send: Send) -> bool:
        assert kept.start is not None and kept.body is not None
        await send(kept.start)
        await send(kept.body)
        return True


def _whole(sent: list[Message], largest: int) -> bool:
    """An answer in two messages (start, one body) of at most `largest` bytes."""
    return len(sent) == 2 and not sent[1].get("more_body") and len(sent[1].get("body", b"")) <= largest
