"""The archive's pages to browse, at HyperKitty's paths: what the URLs Mailman writes into
`Archived-At` headers and list footers open, and what a reader browses. Small, escaped,
accessible HTML; no JavaScript.

    <prefix>                                      the index of public lists
    <prefix>list/<address>/                       the list: latest and most active threads, months
    <prefix>list/<address>/<yyyy>/<mm>/           the threads with mail in that month
    <prefix>list/<address>/latest                 the same for the month of the newest mail
    <prefix>list/<address>/thread/<thread_id>/    a whole thread, replies nested, every text
    <prefix>list/<address>/message/<hash>/        a message: headers, text, attachments, links

An unknown list, thread, message or month is a 404 page; a private list's pages are 403. A page is
a function that reads its rows from the stores in one worker-thread call (the connection and the
path's values in, the template's context out, or ArchiveError) and a template that renders them;
web_door.py holds the doors' base and the templates' filters. Each answer carries caching.py's
validators (a list's pages its revision's, the index the whole archive's), and a request whose
copy is current is a 304 before any row is read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.access import HASH, visible_list_page
from sathub.archive.caching import Kind, Validators, of_archive, of_list
from sathub.archive.edge import ArchiveError
from sathub.archive.links import PageLinks
from sathub.archive.mail.dates import utc_now
from sathub.archive.pages.thread_tree import layout, nest
from sathub.archive.removal.permission import has_session, remover
from sathub.archive.store import attachments, emails, lists, months, threads
from sathub.archive.store.listing import Page
from sathub.archive.web_door import HEADERS, WebDoor, render_page
from sathub.db.engines import Connection, Row
from sathub.web import in_thread

LATEST_THREADS = 30
MOST_ACTIVE_THREADS = 10
# "Most active" looks at the threads active in the 30 days before the list's newest activity (not
# before today): a list that went quiet years ago still shows what was discussed most at its end.
ACTIVE_WINDOW = timedelta(days=30)
THREAD_PAGE_EMAILS = 1000  # a thread page shows at most this many messages
# What a page with removal's buttons says to caches: it is one logged-in person's, and its ETag is
# not the public page's (the `removal` variant).
PERSONAL_CACHE_CONTROL = "private, no-store"
# HyperKitty's month paths take a year of 4 digits and a month of 1 or 2 (`\d{4}/\d\d?`); the last
# month whose end a datetime can hold is 9998-12.
FIRST_YEAR, LAST_YEAR = 1, 9998
YEAR_DIGITS, MONTH_DIGITS = 4, 2


class Digits(Convertor[str]):
    """A path segment of ASCII digits, kept as text: Starlette's `int` convertor calls int(), which
    raises ValueError (a 500) past Python's 4,300 digits; month_rows reads the number."""

    regex = "[0-9]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("digits", Digits())


def index_rows(conn: Connection) -> dict:
    return {"lists": lists.public_lists_with_totals(conn)}


def list_rows(conn: Connection, address: str) -> dict:
    mailing_list = visible_list_page(conn, address)
    latest = threads.list_threads(conn, mailing_list.id, Page(LATEST_THREADS, 0))
    most_active: Sequence[Row] = []
    if latest:  # latest[0] is the list's most recently active thread
        since = latest[0].date_active - ACTIVE_WINDOW
        most_active = threads.most_active_threads(conn, mailing_list.id, since, MOST_ACTIVE_THREADS)
    with_mail = months.months_with_mail(conn, mailing_list.id)
    return {
        "mailing_list": mailing_list,
        "threads": latest,
        "most_active": most_active,
        "years": _by_year(with_mail),
        "active_since": latest[0].date_active - ACTIVE_WINDOW if latest else None,
    }


def _by_year(with_mail) -> list[tuple[int, list]]:
    """[(year, [(month, count), …]), …], newest first, from months_with_mail's rows."""
    years: dict[int, list] = {}
    for year, month, count in with_mail:
        years.setdefault(year, []).append((month, count))
    return list(years.items())


def month_rows(conn: Connection, address: str, year: str, month: str) -> dict:
    """`year` and `month`: the path's digits (Digits)."""
    mailing_list = visible_list_page(conn, address)
    # The lengths first: int() of a longer run of digits is refused or slow, and never in range.
    if not (
        len(year) <= YEAR_DIGITS
        and len(month) <= MONTH_DIGITS
        and FIRST_YEAR <= int(year) <= LAST_YEAR
        and 1 <= int(month) <= 12
    ):
        raise ArchiveError(404, f"There is no month {year}/{month} in the archive of {mailing_list.name}.")
    return _month(conn, mailing_list, int(year), int(month), latest=False)


def latest_rows(conn: Connection, address: str) -> dict:
    """The month of the list's newest mail (HyperKitty shows the calendar's month, which is empty
    for a list that has gone quiet); this month for a list without mail."""
    mailing_list = visible_list_page(conn, address)
    newest = months.newest_archived(conn, mailing_list.id) or utc_now()
    return _month(conn, mailing_list, newest.year, newest.month, latest=True)


def _month(conn: Connection, mailing_list: Row, year: int, month: int, *, latest: bool) -> dict:
    begin = datetime(year, month, 1)
    end = datetime(year + month // 12, month % 12 + 1, 1)
    around = months.mail_around(conn, mailing_list.id, begin, end)
    older = (around.before.year, around.before.month) if around.before else None
    newer = (around.after.year, around.after.month) if around.after else None
    return {
        "mailing_list": mailing_list,
        "year": year,
        "month": month,
        "latest": latest,
        "threads": months.month_threads(conn, mailing_list.id, begin, end),
        "older": older,
        "newer": newer,
    }


def thread_rows(conn: Connection, address: str, thread_id: str) -> dict:
    mailing_list = visible_list_page(conn, address)
    thread = threads.find_thread(conn, mailing_list.id, thread_id) if HASH.fullmatch(thread_id) else None
    if thread is None:
        raise ArchiveError(404, f"There is no such thread in {mailing_list.name}.")
    shown = emails.thread_emails(conn, mailing_list, thread.thread_id, Page(THREAD_PAGE_EMAILS, 0), with_text=True)
    return {
        "mailing_list": mailing_list,
        "thread": thread,
        "layout": layout(nest(shown)),
        "shown": len(shown),
        "participants": len({email.sender_address.lower() for email in shown}),
        "attachments": attachments.thread_attachments(conn, thread.id) if shown else {},
    }


def message_rows(conn: Connection, address: str, message_id_hash: str) -> dict:
    mailing_list = visible_list_page(conn, address)
    email = emails.find_email(conn, mailing_list, message_id_hash) if HASH.fullmatch(message_id_hash) else None
    if email is None:
        raise ArchiveError(404, f"There is no such message in {mailing_list.name}.")
    return {
        "mailing_list": mailing_list,
        "email": email,
        "children": emails.email_children(conn, email.id),
        "attachments": attachments.email_attachments(conn, email.id),
    }


# -- the doors -----------------------------------------------------------------------------------


class WebPage(WebDoor):
    """The door of one page under one web prefix: `rows` reads, `template` renders."""

    def __init__(
        self,
        web_prefix: str,
        rows,
        template: str,
        params: tuple[str, ...],
        kind: Kind = Kind.LISTING,
        removable: bool = False,
    ) -> None:
        """`params`: the path's values `rows` takes, the list's address first (none: the index).
        `removable`: the page shows removal's buttons to those allowed (archive/removal/)."""
        super().__init__(web_prefix)
        self.rows, self.template, self.params, self.kind = rows, template, params, kind
        self.removable = removable

    async def respond(self, request: Request) -> Response:
        links = self.links(request)
        values = [request.path_params[p] for p in self.params]
        # Only a request with a session cookie is asked who it is: the public page costs nothing more.
        removing = self.removable and has_session(request) and await remover(request, values[0]) is not None
        fresh, body = await in_thread(request, self._page, request, links, removing, *values)
        if body is None:
            assert fresh is not None
            return fresh.not_modified()
        return Response(body, headers={**HEADERS, **(fresh.headers if fresh else {})})

    def _page(
        self, conn: Connection, request: Request, links: PageLinks, removing: bool, *values
    ) -> tuple[Validators | None, str | None]:
        """Read and render in the worker thread: a thread page of a hundred messages takes ~10 ms
        to render, which would otherwise stall every other request of the event loop. No body
        when the client's copy is current. `removing`: with removal's buttons, for one person."""
        if values:
            fresh = of_list(conn, request, self.kind, values[0], *(("removal",) if removing else ()))
        else:
            fresh = of_archive(conn, request, self.kind)
        if fresh is not None and removing:
            fresh = replace(fresh, cache_control=PERSONAL_CACHE_CONTROL)
        if fresh is not None and fresh.current(request):
            return fresh, None
        return fresh, render_page(self.template, links=links, removal=removing, **self.rows(conn, *values))


def pages(web_prefix: str) -> dict[str, WebPage]:
    """The pages under one web prefix (`/archive/`), by path pattern after it. Registered in this
    order: the month's `{year:digits}/{month:digits}/` only takes digits, so it never shadows a
    `thread/`, `message/` or `export/` path."""
    return {
        "": WebPage(web_prefix, index_rows, "page_index.html", ()),
        "list/{address}/": WebPage(web_prefix, list_rows, "page_list.html", ("address",)),
        "list/{address}/thread/{thread_id}/": WebPage(
            web_prefix, thread_rows, "page_thread.html", ("address", "thread_id"), removable=True
        ),
        "list/{address}/message/{message_id_hash}/": WebPage(
            web_prefix, message_rows, "page_message.html", ("address", "message_id_hash"), Kind.MESSAGE, True
        ),
        "list/{address}/{year:digits}/{month:digits}/": WebPage(
            web_prefix, month_rows, "page_month.html", ("address", "year", "month")
        ),
        "list/{address}/latest": WebPage(web_prefix, latest_rows, "page_month.html", ("address",)),
    }
