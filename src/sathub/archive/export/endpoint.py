"""`<web prefix>list/<address>/export/<name>.mbox.gz`: a list's mail as a gzip-compressed mboxrd,
at HyperKitty's address with HyperKitty's parameters and headers, streamed.

    start=YYYY-MM-DD   messages dated on or after that day (UTC)
    end=YYYY-MM-DD     messages dated before that day (exclusive)
    thread=<id>        the messages of one thread
    message=<hash>     one message
    q=<query>          search results: 400 until the archive's search exists

Messages go out in the order the archive received them (the order an import of the export needs
to rebuild the same threads), 500 rows a statement, each chunk compressed and sent before the next
is read: memory stays flat and the first bytes leave after one short statement, whatever the
size. A client that goes away stops the export at the next chunk (the server's next send fails).
At most `max_exports` exports run at once in one process (SATHUB_MAX_EXPORTS); beyond, 503 with
Retry-After. Errors are the archive's HTML error pages."""

from __future__ import annotations

import re
from datetime import datetime
from functools import partial
from urllib.parse import quote

from starlette.concurrency import iterate_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from sathub.archive.access import HASH, visible_list
from sathub.archive.api.render import NOSNIFF
from sathub.archive.edge import ArchiveEndpoint, ArchiveError
from sathub.archive.export.mbox import gzip_stream
from sathub.archive.pages.browse import error_page
from sathub.archive.store.sources import export_chunks
from sathub.db.engines import connect
from sathub.web import engine_of, in_thread, settings_of

RETRY_AFTER = "10"  # seconds: exports are long, but a slot frees as soon as one ends
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# HyperKitty's route takes any name without `/` or `@`; a name must also fit a quoted header value.
_NAME = re.compile(r'[^/@"\\\x00-\x1f\x7f]+')
_FILTERS = ("start", "end", "thread", "message", "q")


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
        finally:
            self.release()


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


def export_filters(request: Request) -> dict:
    """The filters of the query string, or ArchiveError 400 saying which is wrong."""
    params: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name in _FILTERS:
            if name in params:
                raise ArchiveError(400, f"{name} is given twice.")
            params[name] = value
    if "q" in params:
        raise ArchiveError(
            400, "Exporting search results (q=) is not available yet: the archive's search is still being built."
        )
    for name in ("thread", "message"):
        if name in params and not HASH.fullmatch(params[name]):
            raise ArchiveError(400, f"{name} must be an id of 32 characters A-Z and 2-7.")
    filters = {
        "thread": params.get("thread"),
        "message": params.get("message"),
        "start": _day(params, "start"),
        "end": _day(params, "end"),
    }
    return filters


def content_disposition(name: str) -> str:
    """HyperKitty's `attachment; filename="<name>.mbox.gz"`, with the RFC 6266 form for a name
    that is not ASCII."""
    filename = f"{name}.mbox.gz"
    if filename.isascii():
        return f'attachment; filename="{filename}"'
    return f"attachment; filename*=UTF-8''{quote(filename, safe='')}"


class Export(ArchiveEndpoint):
    unavailable = "The archive is unavailable; try again later."

    def __init__(self, web_prefix: str) -> None:
        self.web_prefix = web_prefix

    def not_allowed(self, method: str) -> str:
        return f"{method} is not allowed here."

    async def respond(self, request: Request) -> Response:
        params = request.path_params
        if not _NAME.fullmatch(params["name"]):
            raise ArchiveError(404, "There is no such export.")
        filters = export_filters(request)
        mailing_list = await in_thread(request, _list_of, params["address"])
        headers = {
            "Content-Type": "application/gzip",
            "Content-Disposition": content_disposition(params["name"]),
            **NOSNIFF,
        }
        if request.method == "HEAD":  # the headers of GET; the length is not known before the end
            response = Response(None, 200, headers)
            del response.headers["content-length"]
            return response
        if not SLOTS.take(settings_of(request).max_exports):
            raise ArchiveError(503, "Too many exports are running; try again in a few seconds.")
        engine = engine_of(request)
        chunks = export_chunks(partial(connect, engine), mailing_list.id, **filters)
        return _Streaming(iterate_in_threadpool(gzip_stream(chunks)), headers, SLOTS.give_back)

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        response = error_page(request, self.web_prefix, error, self.allow)
        if error.status == 503:
            response.headers["Retry-After"] = RETRY_AFTER
        return response


def _list_of(conn, address: str):
    return visible_list(
        conn, address, f"There is no list {address} in this archive.", "The archive of {name} is private."
    )
