"""The sitemaps' doors, under the first web prefix alone (sitemap.py says why):

    <web>list/<address>/sitemap.xml                   a list's index of month sitemaps
    <web>list/<address>/sitemap-<yyyy>-<mm>-<n>.xml   part n of a month

A private list's sitemaps answer as a list that does not exist (404, the same page), as does a
list without mail (an index of no sitemap is not valid) and a part past a month's end. Each answer
carries a strong ETag made of the list's state (its count of messages and newest id, one read of
an index) and the limits: a matching If-None-Match is a 304 after that read, before any month is
counted or any message read. A part is streamed: its messages are read a chunk at a time, each
on a connection of its own, and written as they come."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from functools import partial

from starlette.concurrency import iterate_in_threadpool, run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from sathub.archive.access import visible_list
from sathub.archive.crawlers import sitemap
from sathub.archive.edge import NOSNIFF, ArchiveError
from sathub.archive.links import WEB_PREFIXES
from sathub.archive.store.sitemap import list_state, month_entries, months_with_newest
from sathub.archive.web_door import WebDoor
from sathub.db.engines import Connection, Row, connect
from sathub.web import engine_of, in_thread, not_modified, site_url

CHUNK = 2000  # messages a statement of a part
LAST_YEAR = 9998  # the last year whose months all end within what a datetime holds
HEADERS = {"Content-Type": sitemap.CONTENT_TYPE, **NOSNIFF}


def sitemap_list(conn: Connection, address: str) -> tuple[Row, Row]:
    """The list at `address` when anyone may read it and it has mail, with its state (emails_count,
    newest_id); else 404, in the words of a list that does not exist."""
    unknown = f"There is no list {address} in this archive."
    try:
        mailing_list = visible_list(conn, address, unknown)
    except ArchiveError:  # a private list's 403 would name it: it answers as a list that does not exist
        raise ArchiveError(404, unknown) from None
    state = list_state(conn, mailing_list.id)
    if not state.emails_count:
        raise ArchiveError(404, f"The archive of {mailing_list.name} has no mail yet.")
    return mailing_list, state


class SitemapDoor(WebDoor):
    """Either door: the list's check, its ETag and the conditional GET, in one worker-thread call."""

    def web(self, request: Request) -> str:
        return site_url(request) + self.web_prefix

    def checked(self, conn: Connection, request: Request, web: str, *names: object) -> tuple[Row, str, bool]:
        """(list, ETag, whether the client's copy is current) of the request's list."""
        mailing_list, state = sitemap_list(conn, request.path_params["address"])
        tag = sitemap.etag(web, mailing_list.name, *state, *names, *sitemap.limits())
        return mailing_list, tag, not_modified(request, tag)


class SitemapIndex(SitemapDoor):
    async def respond(self, request: Request) -> Response:
        web = self.web(request)
        tag, body = await in_thread(request, self._index, request, web)
        if body is None:
            return Response(status_code=304, headers={"ETag": tag})
        return Response(body, headers={**HEADERS, "ETag": tag})

    def _index(self, conn: Connection, request: Request, web: str) -> tuple[str, bytes | None]:
        mailing_list, tag, current = self.checked(conn, request, web, "index")
        if current:
            return tag, None
        entries = sitemap.index_entries(web, mailing_list.name, months_with_newest(conn, mailing_list.id))
        return tag, (sitemap.INDEX_HEAD + "".join(entries) + sitemap.INDEX_TAIL).encode()


class MonthSitemap(SitemapDoor):
    async def respond(self, request: Request) -> Response:
        name = sitemap.PART_NAME.fullmatch(request.path_params["part"])
        if name is None or not (1 <= int(name[1]) <= LAST_YEAR and 1 <= int(name[2]) <= 12):
            raise ArchiveError(404, "There is no such sitemap.")
        year, month, part = int(name[1]), int(name[2]), int(name[3])
        web = self.web(request)
        mailing_list, tag, current = await in_thread(request, self.checked, request, web, year, month, part)
        if current:
            return Response(status_code=304, headers={"ETag": tag})
        per_part = sitemap.emails_per_part(web, mailing_list.name)
        begin = datetime(year, month, 1)
        end = datetime(year + month // 12, month % 12 + 1, 1)
        chunks = month_entries(
            partial(connect, engine_of(request)), mailing_list.id, (begin, end), (part - 1) * per_part, per_part, CHUNK
        )
        first = await run_in_threadpool(next, chunks, None)
        if first is None:
            raise ArchiveError(404, f"There is no such sitemap of {mailing_list.name}.")
        headers = {**HEADERS, "ETag": tag}
        if request.method == "HEAD":  # the headers of GET; the length is not known before the end
            response = Response(None, 200, headers)
            del response.headers["content-length"]
            return response
        return StreamingResponse(_written(web, mailing_list.name, first, chunks), 200, headers)


async def _written(web: str, address: str, first: Sequence[Row], rest) -> AsyncIterator[bytes]:
    yield (sitemap.URLSET_HEAD + sitemap.month_urls(web, address, first)).encode()
    async for rows in iterate_in_threadpool(rest):
        yield sitemap.month_urls(web, address, rows).encode()
    yield sitemap.URLSET_TAIL.encode()


def sitemap_routes() -> list[Route]:
    """The sitemaps' routes, under the first web prefix only."""
    web = WEB_PREFIXES[0]
    return [
        Route(web + "list/{address}/sitemap.xml", SitemapIndex(web)),
        Route(web + "list/{address}/sitemap-{part}.xml", MonthSitemap(web)),
    ]
