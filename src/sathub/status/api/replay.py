"""Whole answers of the read-only JSON endpoints, replayed without the framework.

A GET of catalog, reports, summary, statuses, satellites or sat_info depends on nothing but its
path and query, the scheme and host its links are built from, the data revision and the current
second (times.utc_now reads time to the second, as PHP's time() does). So a 200 answer made within
one second at one revision is the answer to every identical request arriving in that second while
the revision stands: it is sent again as the same two ASGI messages, before middleware, routing and
handler, which cost as much as the HTTP server itself (docs/design.md, "Hits are replayed before
the framework"). The outermost layer of the app (app.SathubApp)."""

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


class ReplayedAnswers:
    def __init__(self, app: ASGIApp, answers: AnswerCache, prefix: str = "") -> None:
        self.app, self.answers = app, answers
        self.paths = frozenset(f"{prefix}/api/v1/{name}" for name in REPLAYABLE)
        # request identity -> (revision, second, response start message, response body message)
        self._kept: OrderedDict[tuple, tuple[int, datetime, Message, Message]] = OrderedDict()

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
        if kept is not None and kept[0] == revision and kept[1] == second:
            await send(kept[2])
            await send(kept[3])
            return
        sent: list[Message] = []

        async def recording(message: Message) -> None:
            sent.append(message)
            await send(message)

        await self.app(scope, receive, recording)
        # Kept only if the handler ran within `second`, so that its clock read that second too.
        if times.utc_now() == second and _whole_200(sent):
            self._kept[key] = (revision, second, sent[0], sent[1])
            self._kept.move_to_end(key)
            if len(self._kept) > KEPT:
                self._kept.popitem(last=False)


def _whole_200(sent: list[Message]) -> bool:
    return (
        len(sent) == 2
        and sent[0]["status"] == 200
        and not sent[1].get("more_body")
        and len(sent[1].get("body", b"")) <= LARGEST
    )
