"""The archive's feeds, beside its pages (docs/archive-export.md, "Feeds"):

    <prefix>list/<address>/feed/                          RSS 2.0, HyperKitty's path and item fields
    <prefix>list/<address>/feed/atom/                     Atom: the list's newest messages
    <prefix>list/<address>/thread/<thread_id>/feed/atom/  Atom: the thread's newest messages
    <prefix>sender/<mailman_id or address>/feed/atom/     Atom: a sender's newest messages on public lists
    <prefix>search/feed/atom/?q=…[&mlist=<address>]       Atom: the newest messages a search finds

30 items by default, `?limit=1…200`; anything else is a 400 page. Each answer carries caching.py's
validators (a list's and a thread's feeds its list's revision, a sender's and a search's the whole
archive's), and a conditional GET that still matches is a 304 before any item is read: feed
readers poll every few minutes, and most polls find nothing new. A private list's feeds are 403;
errors are the pages' HTML error pages."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import get_route_path

from sathub.archive.access import HASH, LIST_ADDRESS, MAILMAN_ID, visible_list_page
from sathub.archive.budgets.spending import SEARCH, spend
from sathub.archive.caching import Kind, Validators, of_archive, of_list
from sathub.archive.edge import ArchiveError
from sathub.archive.feeds import render
from sathub.archive.feeds.render import FeedContent
from sathub.archive.links import PageLinks, quote_path
from sathub.archive.mail.senders import obfuscate, shown_sender
from sathub.archive.search.request import read_query
from sathub.archive.store import emails, search, threads
from sathub.archive.store import feeds as feed_store
from sathub.archive.web_door import WebDoor
from sathub.db.engines import Connection, connect
from sathub.web import engine_of, site_url

DEFAULT_ITEMS, MAX_ITEMS = 30, 200
LIMIT_ERROR = f"limit must be a whole number from 1 to {MAX_ITEMS}."
EPOCH = datetime(1970, 1, 1)  # the date of a feed that has never had an item
TYPES = {"rss": "application/rss+xml; charset=utf-8", "atom": "application/atom+xml; charset=utf-8"}
RENDER = {"rss": render.rss, "atom": render.atom}


def feed_limit(request: Request) -> int:
    """The number of items `?limit=` asks for (once, 1 to MAX_ITEMS), else DEFAULT_ITEMS."""
    values = request.query_params.getlist("limit")
    if not values:
        return DEFAULT_ITEMS
    value = values[0]
    if len(values) == 1 and value.isascii() and value.isdigit() and len(value) <= 3 and 1 <= int(value) <= MAX_ITEMS:
        return int(value)
    raise ArchiveError(400, LIMIT_ERROR)


# -- what each feed holds: (connection, links, path values…, limit) -> FeedContent ---------------


def list_feed(conn: Connection, links: PageLinks, urls: tuple[str, str], address: str, limit: int) -> FeedContent:
    mailing_list = visible_list_page(conn, address)
    items = feed_store.list_items(conn, mailing_list.id, limit)
    return FeedContent(
        title=mailing_list.display_name or mailing_list.name,
        subtitle=mailing_list.description or "",
        alternate=links.list(mailing_list.name),
        self_url=urls[0],
        feed_id=urls[1],
        updated=max((item.archived_date for item in items), default=mailing_list.created_at),
        items=items,
    )


def thread_feed(
    conn: Connection, links: PageLinks, urls: tuple[str, str], address: str, thread_id: str, limit: int
) -> FeedContent:
    mailing_list = visible_list_page(conn, address)
    thread = threads.find_thread(conn, mailing_list.id, thread_id) if HASH.fullmatch(thread_id) else None
    if thread is None:
        raise ArchiveError(404, f"There is no such thread in {mailing_list.name}.")
    items = feed_store.thread_items(conn, thread.id, limit)
    return FeedContent(
        title=thread.subject or "(no subject)",
        subtitle=f"A thread of {mailing_list.display_name or mailing_list.name}",
        alternate=links.thread(mailing_list.name, thread.thread_id),
        self_url=urls[0],
        feed_id=urls[1],
        updated=max((item.archived_date for item in items), default=thread.date_active),
        items=items,
    )


def sender_feed(conn: Connection, links: PageLinks, urls: tuple[str, str], key: str, limit: int) -> FeedContent:
    """A sender by mailman_id or address (any case), as the API's sender endpoint takes them. A
    sender without mail on the lists anyone may read is an empty feed made of the key alone, as
    the API answers `[]`: a 404, or the mailman_id its private mail gave it, would tell an address
    that posted only to private lists apart from one that never posted."""
    if not (MAILMAN_ID.fullmatch(key) or LIST_ADDRESS.fullmatch(key)):
        raise ArchiveError(404, "There is no such sender in this archive.")
    sender = emails.find_sender(conn, key)
    items = feed_store.sender_items(conn, sender.id, limit) if sender is not None else []
    shown, sender_key = (shown_sender(items[0].sender_name), items[0].mailman_id) if items else (obfuscate(key), key)
    return FeedContent(
        title=f"Messages from {shown}",
        subtitle="",
        alternate=links.api.sender_emails(sender_key) + "?format=api",
        self_url=urls[0],
        feed_id=urls[1],
        updated=max((item.archived_date for item in items), default=EPOCH),
        items=items,
    )


def search_feed(
    conn: Connection, links: PageLinks, urls: tuple[str, str], text: str, mlist: str, limit: int
) -> FeedContent:
    """The newest emails a search finds (the language of docs/archive-search.md, on public lists
    only, within `mlist` when given), newest first whatever the search page's order."""
    query = read_query(text)
    mailing_list = visible_list_page(conn, mlist) if mlist else None
    ids = search.matching_ids(conn, query.tree, list_id=mailing_list.id if mailing_list else None, limit=limit)
    items = feed_store.items_by_ids(conn, ids)
    where = f" in {mailing_list.display_name or mailing_list.name}" if mailing_list else ""
    page = [("q", query.text), *([("mlist", mailing_list.name)] if mailing_list else []), ("sort", "date-desc")]
    return FeedContent(
        title=f"Search: {query.text}{where}",
        subtitle="",
        alternate=f"{links.index()}search?{urlencode(page)}",
        self_url=urls[0],
        feed_id=urls[1],
        updated=max((item.archived_date for item in items), default=EPOCH),
        items=items,
    )


# -- the door ------------------------------------------------------------------------------------


class FeedDoor(WebDoor):
    """One feed (`content` reads it, in RSS or Atom form) under one web prefix."""

    def __init__(
        self,
        web_prefix: str,
        content: Callable[..., FeedContent],
        form: str,
        params: tuple[str, ...],
        query: tuple[str, ...] = (),
    ):
        """`params`: the path's values `content` takes; `query`: the parameters that say which feed
        this is (a search's `q` and `mlist`), passed after them ("" when absent)."""
        super().__init__(web_prefix)
        self.content, self.form, self.params, self.query = content, form, params, query

    async def respond(self, request: Request) -> Response:
        limit = feed_limit(request)
        site = site_url(request)
        links = self.links(request)
        asked = [(key, request.query_params[key]) for key in self.query if request.query_params.get(key)]
        feed_id = site + quote_path(get_route_path(request.scope)) + (f"?{urlencode(asked)}" if asked else "")
        self_url = feed_id
        if "limit" in request.query_params:
            self_url += ("&" if asked else "?") + f"limit={limit}"
        values = [request.path_params[p] for p in self.params]
        values += [request.query_params.get(key, "") for key in self.query]
        fresh, body = await run_in_threadpool(self._answer, request, links, (self_url, feed_id), *values, limit)
        headers = {"X-Content-Type-Options": "nosniff", **(fresh.headers if fresh else {})}
        if body is None:
            return Response(status_code=304, headers=headers)
        return Response(body, headers={"Content-Type": TYPES[self.form], **headers})

    def _answer(
        self, request: Request, links: PageLinks, urls: tuple[str, str], *values
    ) -> tuple[Validators | None, bytes | None]:
        """The feed's validators, then its bytes (none when the client's copy is current), in one
        worker-thread trip holding one pooled connection at a time: a search's feed spends from the
        search budget on a connection of its own between the two, since a request holding two would
        wait for the pool while holding one, and a burst of them would empty it for good."""
        engine = engine_of(request)
        with connect(engine) as conn:
            fresh = self._validators(conn, request, values)
            if fresh is not None and fresh.current(request):
                return fresh, None
            if not self.query:
                return fresh, self._render(conn, links, urls, *values)
        spend(request, SEARCH)
        with connect(engine) as conn:
            return fresh, self._render(conn, links, urls, *values)

    def _validators(self, conn: Connection, request: Request, values) -> Validators | None:
        kind = Kind.SEARCH if self.query else Kind.LISTING
        # A list's and a thread's feeds take the list's address first; the others span lists.
        if "address" in self.params:
            return of_list(conn, request, kind, values[0])
        # a search's feed narrowed to a list (`mlist`) that no one may read answers its error
        return of_archive(conn, request, kind, within=request.query_params.get("mlist") or None)

    def _render(self, conn: Connection, links: PageLinks, urls: tuple[str, str], *values) -> bytes:
        feed = self.content(conn, links, urls, *values)

        def item_links(item) -> tuple[str, str, str]:
            return (
                links.message(item.list_name, item.message_id_hash),
                links.atom_sender(item.mailman_id),
                links.thread(item.list_name, item.thread_hash),
            )

        return RENDER[self.form](feed, item_links).encode()


def feeds(web_prefix: str) -> dict[str, FeedDoor]:
    """The feeds under one web prefix (`/archive/`), by path pattern after it."""
    return {
        "list/{address}/feed/": FeedDoor(web_prefix, list_feed, "rss", ("address",)),
        "list/{address}/feed/atom/": FeedDoor(web_prefix, list_feed, "atom", ("address",)),
        "list/{address}/thread/{thread_id}/feed/atom/": FeedDoor(
            web_prefix, thread_feed, "atom", ("address", "thread_id")
        ),
        "sender/{key}/feed/atom/": FeedDoor(web_prefix, sender_feed, "atom", ("key",)),
        "search/feed/atom/": FeedDoor(web_prefix, search_feed, "atom", (), ("q", "mlist")),
    }
