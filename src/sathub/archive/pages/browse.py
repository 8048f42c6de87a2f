"""The archive's web pages at HyperKitty's paths: what the URLs Mailman writes into `Archived-At`
headers and list footers open, and what a reader browses. Small, escaped, accessible HTML; no
JavaScript.

    <prefix>                                      the index of public lists
    <prefix>list/<address>/                       the list: latest and most active threads, months
    <prefix>list/<address>/<yyyy>/<mm>/           the threads with mail in that month
    <prefix>list/<address>/latest                 the same for the month of the newest mail
    <prefix>list/<address>/thread/<thread_id>/    a whole thread, replies nested, every text
    <prefix>list/<address>/message/<hash>/        a message: headers, text, attachments, links

An unknown list, thread, message or month is a 404 page; a private list's pages are 403. The
rows of each page are read by pages/browse_rows.py; the feeds are pages/feeds.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import jinja2
from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.api.links import Links, quote_path
from sathub.archive.edge import ArchiveEndpoint, ArchiveError
from sathub.archive.pages import browse_rows
from sathub.db.engines import Connection
from sathub.web import in_thread, site_url

ERROR_TITLES = {
    400: "Bad request",
    403: "Private list",
    404: "Not found",
    405: "Method not allowed",
    503: "Unavailable",
}
# The pages need no script, frame or remote resource; the CSP says so to the browser.
HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
}
# Spelt out, not calendar.month_name (which follows the process's locale): the pages say lang="en".
MONTH_NAMES: tuple[str, ...] = (
    *("January", "February", "March", "April", "May", "June"),
    *("July", "August", "September", "October", "November", "December"),
)

_templates = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)


def list_page_url(web: str, address: str) -> str:
    """`web`: the site URL with the web prefix (`https://host/archive/`)."""
    return f"{web}list/{quote_path(address)}/"


def message_page_url(web: str, address: str, message_id_hash: str) -> str:
    return f"{web}list/{quote_path(address)}/message/{message_id_hash}/"


def thread_page_url(web: str, address: str, thread_id: str) -> str:
    return f"{web}list/{quote_path(address)}/thread/{thread_id}/"


@dataclass
class PageLinks:
    web: str  # site URL + web prefix
    api: Links

    def index(self) -> str:
        return self.web

    def list(self, address: str) -> str:
        return list_page_url(self.web, address)

    def thread(self, address: str, thread_id: str) -> str:
        return thread_page_url(self.web, address, thread_id)

    def message(self, address: str, message_id_hash: str) -> str:
        return message_page_url(self.web, address, message_id_hash)

    def month(self, address: str, year: int, month: int) -> str:
        return f"{self.list(address)}{year:04d}/{month:02d}/"

    def latest(self, address: str) -> str:
        return f"{self.list(address)}latest"

    def raw(self, address: str, message_id_hash: str) -> str:
        """The message's source as received (engineer D's export, docs/archive-export.md)."""
        return f"{self.message(address, message_id_hash)}raw"

    def export_thread(self, address: str, thread_id: str) -> str:
        """The thread as an mbox.gz, at HyperKitty's export path with its `thread` parameter."""
        return f"{self.list(address)}export/{thread_id}.mbox.gz?thread={thread_id}"

    def rss(self, address: str) -> str:
        return f"{self.list(address)}feed/"

    def atom_list(self, address: str) -> str:
        return f"{self.list(address)}feed/atom/"

    def atom_thread(self, address: str, thread_id: str) -> str:
        return f"{self.thread(address, thread_id)}feed/atom/"

    def atom_sender(self, mailman_id: str) -> str:
        return f"{self.web}sender/{mailman_id}/feed/atom/"


def page_date(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC")


def iso_date(value: datetime) -> str:
    """For `<time datetime>`: the machine-readable form of page_date."""
    return value.strftime("%Y-%m-%dT%H:%MZ")


def obfuscate(address: str) -> str:
    return address.replace("@", " (a) ")


def month_name(month: int) -> str:
    return MONTH_NAMES[month - 1]


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


_templates.filters.update(
    page_date=page_date, iso_date=iso_date, obfuscate=obfuscate, month_name=month_name, plural=plural
)


def render_page(template: str, **context) -> str:
    return _templates.get_template(template).render(**context)


class WebDoor(ArchiveEndpoint):
    """A door under one web prefix (pages, feeds, sources, exports, pipermail links): its errors,
    405s and 503s are HTML pages with a way back."""

    unavailable = "The archive is unavailable; try again later."

    def __init__(self, web_prefix: str) -> None:
        self.web_prefix = web_prefix

    def not_allowed(self, method: str) -> str:
        return f"{method} is not allowed here."

    def links(self, request: Request) -> PageLinks:
        return page_links(request, self.web_prefix)

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        return error_page(request, self.web_prefix, error, self.allow)


class WebPage(WebDoor):
    """The door of one page under one web prefix: `rows` reads, `template` renders."""

    def __init__(self, web_prefix: str, rows, template: str, params: tuple[str, ...]) -> None:
        super().__init__(web_prefix)
        self.rows, self.template, self.params = rows, template, params

    async def respond(self, request: Request) -> Response:
        links = self.links(request)
        body = await in_thread(request, self._page, links, *(request.path_params[p] for p in self.params))
        return Response(body, headers=HEADERS)

    def _page(self, conn: Connection, links: PageLinks, *values) -> str:
        """Read and render in the worker thread: a thread page of a hundred messages takes ~10 ms
        to render, which would otherwise stall every other request of the event loop."""
        return render_page(self.template, links=links, **self.rows(conn, *values))


def page_links(request: Request, web_prefix: str) -> PageLinks:
    site = site_url(request)
    return PageLinks(site + web_prefix, Links(site, web_prefix + "api/", None))


def error_page(request: Request, web_prefix: str, error: ArchiveError, allow: str) -> Response:
    """The HTML page of an ArchiveError (pages and feeds): its title, its text, a way back."""
    links = page_links(request, web_prefix)
    body = render_page("page_error.html", title=ERROR_TITLES[error.status], text=error.detail, links=links)
    extra = {"Allow": allow} if error.status == 405 else {}
    return Response(body, status_code=error.status, headers={**HEADERS, **extra})


def pages(web_prefix: str) -> dict[str, WebPage]:
    """The pages under one web prefix (`/archive/`), by path pattern after it. Registered in this
    order: the month's `{year:int}/{month:int}/` only takes digits, so it never shadows a
    `thread/`, `message/` or `export/` path."""
    rows = browse_rows
    return {
        "": WebPage(web_prefix, rows.index_rows, "page_index.html", ()),
        "list/{address}/": WebPage(web_prefix, rows.list_rows, "page_list.html", ("address",)),
        "list/{address}/thread/{thread_id}/": WebPage(
            web_prefix, rows.thread_rows, "page_thread.html", ("address", "thread_id")
        ),
        "list/{address}/message/{message_id_hash}/": WebPage(
            web_prefix, rows.message_rows, "page_message.html", ("address", "message_id_hash")
        ),
        "list/{address}/{year:int}/{month:int}/": WebPage(
            web_prefix, rows.month_rows, "page_month.html", ("address", "year", "month")
        ),
        "list/{address}/latest": WebPage(web_prefix, rows.latest_rows, "page_month.html", ("address",)),
    }
