"""/api/v2's hits and 304s replayed before the framework, as api/replay.py replays version 1's.

A GET of /api/v2 (the stream aside) depends on its path and query, the scheme and host its links
are built from, the data revision and the time (to the day or the hour, read to the second). So a
200 made within one second at one revision is the answer to every identical request of that
second while the revision stands: sent again as the same two ASGI messages, or, when the
request's If-None-Match names its ETag, as a bodiless 304 with the same headers, before
middleware, routing and handler: a 16 kB answer's 304 at 10,369 req/s against 8,430 for its
200 from the answer cache (SQLite, wrk with 64 connections; docs/design.md).
The revision is read first, as every cached answer's is (cache.py): nothing is older than it."""

from __future__ import annotations

from datetime import datetime

from starlette.types import ASGIApp, Message, Scope, Send

from sathub.status.api.replay import Kept, Replayed
from sathub.status.cache import AnswerCache
from sathub.web import etag_matches

# Not /api/v2/passes: its answer moves with the elements revision too, which a load of elements
# moves without the data revision (store/elements.py), so a replay watching the data revision alone
# would send the old elements' passes, and their 304, for the rest of the second. Its handler reads
# both revisions and answers from the answer cache (orbits/passes_door.py).
REPLAYABLE = ("status", "satellites", "reports", "grid-squares", "openapi.json")
_DROPPED_FROM_304 = (b"content-type", b"content-length")


class KeptWithTag(Kept):
    """A 200 (its body None when the handler answered only a 304, which tells the tag but not the
    body) and the 304 of its tag."""

    __slots__ = ("etag", "not_modified")

    def __init__(self, revision: int, second: datetime, start: Message, body: Message | None, etag: bytes):
        super().__init__(revision, second, start if body is not None else None, body)
        self.etag = etag.decode("latin-1")
        headers = [(name, value) for name, value in start["headers"] if name not in _DROPPED_FROM_304]
        self.not_modified = {"type": "http.response.start", "status": 304, "headers": headers}


class ReplayedV2(Replayed):
    largest = 8 * 2**20  # a 30-day status grid of a busy catalog is a few MB

    def __init__(self, app: ASGIApp, answers: AnswerCache, prefix: str = "") -> None:
        super().__init__(app, answers, frozenset(f"{prefix}/api/v2/{name}" for name in REPLAYABLE))

    def keep(self, sent: list[Message], revision: int, second: datetime) -> Kept | None:
        """A 200 or a 304, kept by its ETag (errors are not kept)."""
        if sent[0]["status"] not in (200, 304):
            return None
        etag = next((value for name, value in sent[0]["headers"] if name == b"etag"), None)
        if etag is None:
            return None
        return KeptWithTag(revision, second, sent[0], sent[1] if sent[0]["status"] == 200 else None, etag)

    async def replay(self, kept: Kept, scope: Scope, send: Send) -> bool:
        assert isinstance(kept, KeptWithTag)
        condition = _if_none_match(scope)
        if etag_matches(condition, kept.etag):
            await send(kept.not_modified)
            await send({"type": "http.response.body", "body": b""})
            return True
        if kept.start is not None and kept.body is not None:
            await send(kept.start)
            await send(kept.body)
            return True
        return False


def _if_none_match(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"if-none-match":
            return value.decode("latin-1")
    return None
