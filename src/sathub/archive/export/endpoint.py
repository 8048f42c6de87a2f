"""`<web prefix>list/<address>/export/<name>.mbox.gz`: a list's mail as a gzip-compressed mboxrd,
at HyperKitty's address with HyperKitty's parameters and headers, streamed.

    start=YYYY-MM-DD   messages dated on or after that day (UTC)
    end=YYYY-MM-DD     messages dated before that day (exclusive; after start, else a 400)
    thread=<id>        the messages of one thread
    message=<hash>     one message
    q=<query>          the messages the search language (docs/archive-search.md) finds

Every filter given narrows the export: `q` with `start`/`end`, `thread` or `message` exports the
messages that satisfy all of them; a filter given twice is its last value.
`<web prefix>search/export/<name>.mbox.gz?q=…[&mlist=…]` is the export of a search of every
public list (of `mlist` alone when given), the search page's results as an mbox; it takes
`start`/`end` too. A search's matches are found once, before the answer starts (a query the
language refuses is a 400 naming what is wrong and where), and held as their ids (8 bytes a
match) while their messages are read and sent as below.

Messages go out in the order the archive received them (the order an import of the export needs
to rebuild the same threads), 500 rows a statement, each chunk compressed and sent before the next
is read: memory stays flat and the first bytes leave after one short statement, whatever the
size. A client that goes away stops the export at the next chunk (the server's next send fails).
At most `max_exports` exports run at once in one process (SATHUB_MAX_EXPORTS), at most half of
them for one client address (slots.py); beyond, 503 with Retry-After. Errors are the archive's
HTML error pages. Each answer carries caching.py's validators (a message's export those of a
message, a list's the list's, a search's the whole archive's): a copy that is current is a 304
before any slot is taken or match sought. A client that takes nothing for SATHUB_EXPORT_WRITE_TIMEOUT seconds, or a
database that fails once the answer has begun, is one log line and a cut connection (sending.py:
the client sees a truncated download, never a gzip that looks complete)."""

from __future__ import annotations

import re
from array import array
from datetime import datetime
from functools import partial
from urllib.parse import quote

from starlette.concurrency import iterate_in_threadpool, run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.access import HASH, visible_list_page
from sathub.archive.budgets.spending import EXPORT, spend
from sathub.archive.caching import Kind, Validators, of_archive, of_list
from sathub.archive.edge import NOSNIFF, ArchiveError
from sathub.archive.export.mbox import gzip_stream
from sathub.archive.export.sending import ExportAnswer
from sathub.archive.export.slots import SLOTS
from sathub.archive.search.query import And, DateRange, Node
from sathub.archive.search.request import MISSING, read_query
from sathub.archive.store.email_sources import export_chunks
from sathub.archive.store.search import matching_ids
from sathub.archive.web_door import WebDoor
from sathub.db.engines import Connection, Row, connect
from sathub.web import client_address, engine_of, in_thread, settings_of

RETRY_AFTER = "10"  # seconds: exports are long, but a slot frees as soon as one ends
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # ASCII digits: \d would take ２０２０ too
# HyperKitty's route takes any name without `/` or `@`; a name must also fit a quoted header value.
_NAME = re.compile(r'[^/@"\\\x00-\x1f\x7f]+')
_FILTERS = ("start", "end", "thread", "message", "q", "mlist")


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
    # A parameter given twice is its last value, as the search's API, page and feed read `q`
    # (Starlette's query_params do, as Django's QueryDict does, which HyperKitty's clients know).
    given = request.query_params
    params = {name: given[name] for name in _FILTERS if name in given and (of_search or name != "mlist")}
    if of_search:
        for name in ("thread", "message"):
            if name in params:
                raise ArchiveError(400, f"{name}= narrows a list's export (list/<address>/export/…), not a search's.")
        if "q" not in params:
            raise ArchiveError(400, MISSING)
    for name in ("thread", "message"):
        if name in params and not HASH.fullmatch(params[name]):
            raise ArchiveError(400, f"{name} must be an id of 32 characters A-Z and 2-7.")
    start, end = _day(params, "start"), _day(params, "end")
    if start is not None and end is not None and end <= start:
        raise ArchiveError(
            400,
            f"end must be after start (start={params['start']}, end={params['end']}): the export holds "
            "the days from start up to end, end excluded (start=2020-01-06&end=2020-01-07 is 6 January).",
        )
    filters = {
        "thread": params.get("thread"),
        "message": params.get("message"),
        "start": start,
        "end": end,
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
        filters = self.filters(request)
        kind = Kind.MESSAGE if filters["message"] else Kind.LISTING
        fresh, mailing_list = await in_thread(request, _checked, request, kind, request.path_params["address"])
        return await self.stream(request, mailing_list.id if mailing_list else None, filters, fresh)

    def filters(self, request: Request) -> dict:
        if not _NAME.fullmatch(request.path_params["name"]):
            raise ArchiveError(404, "There is no such export.")
        return export_filters(request)

    async def stream(self, request: Request, list_id: int | None, filters: dict, fresh: Validators) -> Response:
        """The export of `list_id` (every public list when None) as `filters` narrow it; a 304
        when the client's copy is current (`fresh`)."""
        if fresh.current(request):
            return fresh.not_modified()
        headers = {
            "Content-Type": "application/gzip",
            "Content-Disposition": content_disposition(request.path_params["name"]),
            **NOSNIFF,
            **fresh.headers,
        }
        if request.method == "HEAD":  # the headers of GET; the length is not known before the end
            response = Response(None, 200, headers)
            del response.headers["content-length"]
            return response
        if filters["message"] is None:  # a single message's export is never budgeted
            await run_in_threadpool(spend, request, EXPORT)
        query = filters.pop("query", None)
        filters.pop("mlist", None)
        settings, client = settings_of(request), client_address(request)
        refusal = SLOTS.take(client, settings.max_exports)
        if refusal is not None:
            raise ArchiveError(503, refusal)
        release = partial(SLOTS.give_back, client)
        try:
            ids = None if query is None else await in_thread(request, _matches, query, list_id, filters)
        except BaseException:
            release()
            raise
        engine = engine_of(request)
        chunks = export_chunks(partial(connect, engine), list_id, ids=ids, **filters)
        body = iterate_in_threadpool(gzip_stream(chunks))
        return ExportAnswer(body, headers, release, settings.export_write_timeout)

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        response = super().render_error(request, error)
        if error.status == 503:
            response.headers["Retry-After"] = RETRY_AFTER
        return response


def _checked(conn: Connection, request: Request, kind: Kind, address: str | None) -> tuple[Validators, Row | None]:
    """The export's validators (a search's: the whole archive's; else the list's), then the list
    at `address` (none: every public list) when anyone may read it, its error otherwise."""
    if kind is Kind.SEARCH:
        fresh = of_archive(conn, request, kind, within=address)
    else:
        fresh = of_list(conn, request, kind, str(address))
    mailing_list = visible_list_page(conn, address) if address is not None else None
    assert fresh is not None, "a list anyone may read has validators"
    return fresh, mailing_list


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
        fresh, mailing_list = await in_thread(request, _checked, request, Kind.SEARCH, mlist)
        return await self.stream(request, mailing_list.id if mailing_list else None, filters, fresh)
