"""`<web prefix>list/<address>/export/<name>.mbox.gz`: a list's mail as a gzip-compressed mboxrd,
at HyperKitty's address with HyperKitty's parameters and headers, streamed.

    start=YYYY-MM-DD   messages dated on or after that day (UTC)
    end=YYYY-MM-DD     messages dated before that day (exclusive)
    thread=<id>        the messages of one thread
    message=<hash>     one message
    q=<query>          the messages the search language (docs/archive-search.md) finds

Every filter given narrows the export: `q` with `start`/`end`, `thread` or `message` exports the
messages that satisfy all of them. `<web prefix>search/export/<name>.mbox.gz?q=…[&mlist=…]` is
the export of a search of every public list (of `mlist` alone when given), the search page's
results as an mbox; it takes `start`/`end` too. A search's matches are found once, before the
answer starts (a query the language refuses is a 400 naming what is wrong and where), and held
as their ids (8 bytes a match) while their messages are read and sent as below.

Messages go out in the order the archive received them (the order an import of the export needs
to rebuild the same threads), 500 rows a statement, each chunk compressed and sent before the next
is read: memory stays flat and the first bytes leave after one short statement, whatever the
size. A client that goes away stops the export at the next chunk (the server's next send fails).
At most `max_exports` exports run at once in one process (SATHUB_MAX_EXPORTS); beyond, 503 with
Retry-After. Errors are the archive's HTML error pages. A database that fails once the answer has
begun is one log line, and the connection is cut (the client sees a truncated download, never a
gzip that looks complete)."""

from __future__ import annotations

import asyncio
import logging
import re
from array import array
from datetime import datetime
from functools import partial
from urllib.parse import quote

from starlette.concurrency import iterate_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from sathub.archive.access import HASH, visible_list_page
from sathub.archive.edge import NOSNIFF, ArchiveError
from sathub.archive.export.mbox import gzip_stream
from sathub.archive.search.query import And, DateRange, Node
from sathub.archive.search.request import MISSING, read_query
from sathub.archive.store.email_sources import export_chunks
from sathub.archive.store.search import matching_ids
from sathub.archive.web_door import WebDoor
from sathub.db.engines import DatabaseError, connect
from sathub.server.connection_hooks import CONNECTION_HOOKS
from sathub.web import engine_of, in_thread, settings_of

RETRY_AFTER = "10"  # seconds: exports are long, but a slot frees as soon as one ends
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# HyperKitty's route takes any name without `/` or `@`; a name must also fit a quoted header value.
_NAME = re.compile(r'[^/@"\\\x00-\x1f\x7f]+')
_FILTERS = ("start", "end", "thread", "message", "q", "mlist")
log = logging.getLogger("sathub.archive.export")


class Slots:
    """The exports running in this process (one event loop: no lock needed)."""

    def __init__(self) -> None:
        self.running = 0

    def take(self, limit: int) -> bool:
        if self.running >= limit:
            return False
        self.running += 1
        return True

    def give_back(self) -> None:
        self.running -= 1


SLOTS = Slots()


class _Streaming(StreamingResponse):
    """A streaming answer that gives its export slot back however it ends (done, failed, or
    cancelled because the client went away before or while it was sent)."""

    def __init__(self, body, headers: dict[str, str], release) -> None:
        super().__init__(body, 200, headers)
        self.release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except ClientDisconnect:
            pass  # the client went away: the export stopped with the send that failed; nobody to answer
        except DatabaseError as error:
            # The answer has begun (200, part of the gzip): no error page can follow. Ending it
            # would hand the client a download that looks whole; the connection is cut instead.
            first_line = (str(error).strip().splitlines() or [""])[0]
            log.warning(
                "export %s cut: the database failed (%s: %s)", scope.get("path"), type(error).__name__, first_line
            )
            await _cut(scope)
        finally:
            self.release()


async def _cut(scope: Scope) -> None:
    """Abort the connection of the answer under way, when the server offers to (`sathub serve`'s
    protocol, server/http_protocol.py); uvicorn sees the connection lost and says nothing more. A
    server without the hook sees the app return before the answer's end, and closes it itself."""
    hooks = scope.get("extensions", {}).get(CONNECTION_HOOKS)
    if hooks is not None:
        hooks.abort()
        await asyncio.sleep(0)  # the transport's connection_lost runs before the app returns


def _day(params: dict[str, str], name: str) -> datetime | None:
    value = params.get(name)
    if value is None:
        return None
    try:
        if not _DAY.fullmatch(value):
            raise ValueError
        return datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        raise ArchiveError(400, f"{name} must be a day written YYYY-MM-DD, e.g. 2019-06-01.") from None


def export_filters(request: Request, *, of_search: bool = False) -> dict:
    """The filters of the query string, or ArchiveError 400 saying which is wrong. `query` is the
    parsed `q` (None without one), required by the search's export (`of_search`), which also takes
    `mlist` and neither `thread` nor `message`."""
    params: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name in _FILTERS and (of_search or name != "mlist"):
            if name in params:
                raise ArchiveError(400, f"{name} is given twice.")
            params[name] = value
    if of_search:
        for name in ("thread", "message"):
            if name in params:
                raise ArchiveError(400, f"{name}= narrows a list's export (list/<address>/export/…), not a search's.")
        if "q" not in params:
            raise ArchiveError(400, MISSING)
    for name in ("thread", "message"):
        if name in params and not HASH.fullmatch(params[name]):
            raise ArchiveError(400, f"{name} must be an id of 32 characters A-Z and 2-7.")
    filters = {
        "thread": params.get("thread"),
        "message": params.get("message"),
        "start": _day(params, "start"),
        "end": _day(params, "end"),
        "query": read_query(params["q"]).tree if "q" in params else None,
    }
    if of_search:
        filters["mlist"] = params.get("mlist") or None
    return filters


def content_disposition(name: str) -> str:
    """HyperKitty's `attachment; filename="<name>.mbox.gz"`, with the RFC 6266 form for a name
    that is not ASCII."""
    filename = f"{name}.mbox.gz"
    if filename.isascii():
        return f'attachment; filename="{filename}"'
    return f"attachment; filename*=UTF-8''{quote(filename, safe='')}"


class Export(WebDoor):
    """`<web prefix>list/<address>/export/<name>.mbox.gz`: a list's mail, as the filters narrow it."""

    async def respond(self, request: Request) -> Response:
        params = request.path_params
        filters = self.filters(request)
        mailing_list = await in_thread(request, visible_list_page, params["address"])
        return await self.stream(request, mailing_list.id, filters)

    def filters(self, request: Request) -> dict:
        if not _NAME.fullmatch(request.path_params["name"]):
            raise ArchiveError(404, "There is no such export.")
        return export_filters(request)

    async def stream(self, request: Request, list_id: int | None, filters: dict) -> Response:
        """The export of `list_id` (every public list when None) as `filters` narrow it."""
        headers = {
            "Content-Type": "application/gzip",
            "Content-Disposition": content_disposition(request.path_params["name"]),
            **NOSNIFF,
        }
        if request.method == "HEAD":  # the headers of GET; the length is not known before the end
            response = Response(None, 200, headers)
            del response.headers["content-length"]
            return response
        query = filters.pop("query", None)
        filters.pop("mlist", None)
        if not SLOTS.take(settings_of(request).max_exports):
            raise ArchiveError(503, "Too many exports are running; try again in a few seconds.")
        try:
            ids = None if query is None else await in_thread(request, _matches, query, list_id, filters)
        except BaseException:
            SLOTS.give_back()
            raise
        engine = engine_of(request)
        chunks = export_chunks(partial(connect, engine), list_id, ids=ids, **filters)
        return _Streaming(iterate_in_threadpool(gzip_stream(chunks)), headers, SLOTS.give_back)

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        response = super().render_error(request, error)
        if error.status == 503:
            response.headers["Retry-After"] = RETRY_AFTER
        return response


def _matches(conn, query: Node, list_id: int | None, filters: dict) -> array:
    """The ids of the public emails `query` finds (of `list_id` alone when given), ascending (the
    order of arrival). The days of `start`/`end` narrow the search itself, so that the export's
    statements walk only the matches that can be sent."""
    if filters["start"] is not None or filters["end"] is not None:
        query = And((query, DateRange(filters["start"], filters["end"])))
    return array("q", sorted(matching_ids(conn, query, list_id=list_id, sort="date-asc")))


class SearchExport(Export):
    """`<web prefix>search/export/<name>.mbox.gz?q=…[&mlist=<address>]`: what a search of the
    public lists finds, as the export of a list gives it. Private lists are never searched."""

    def filters(self, request: Request) -> dict:
        if not _NAME.fullmatch(request.path_params["name"]):
            raise ArchiveError(404, "There is no such export.")
        return export_filters(request, of_search=True)

    async def respond(self, request: Request) -> Response:
        filters = self.filters(request)
        mlist = filters["mlist"]
        mailing_list = await in_thread(request, visible_list_page, mlist) if mlist is not None else None
        return await self.stream(request, mailing_list.id if mailing_list else None, filters)
