"""The archive's web pages at HyperKitty's paths: what the URLs Mailman writes into `Archived-At`
headers and list footers open. Small, escaped, accessible HTML; no JavaScript.

    <prefix>list/<address>/                       the list: name, description, latest threads
    <prefix>list/<address>/thread/<thread_id>/    a thread's messages in thread order
    <prefix>list/<address>/message/<hash>/        a message: headers, text, attachments, links

An unknown list, thread or message is a 404 page; a private list's pages are 403."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import jinja2
from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.access import HASH, visible_list
from sathub.archive.api.links import Links, quote_path
from sathub.archive.edge import ArchiveEndpoint, ArchiveError
from sathub.archive.store import list_reads, listing, reads
from sathub.db.engines import Connection
from sathub.web import in_thread, site_url

LATEST_THREADS = 30
THREAD_PAGE_EMAILS = 1000  # a thread page shows at most this many messages
ERROR_TITLES = {403: "Private list", 404: "Not found", 405: "Method not allowed", 503: "Unavailable"}
# The pages need no script, frame or remote resource; the CSP says so to the browser.
HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
}

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

    def list(self, address: str) -> str:
        return list_page_url(self.web, address)

    def thread(self, address: str, thread_id: str) -> str:
        return thread_page_url(self.web, address, thread_id)

    def message(self, address: str, message_id_hash: str) -> str:
        return message_page_url(self.web, address, message_id_hash)


def page_date(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC")


def obfuscate(address: str) -> str:
    return address.replace("@", " (a) ")


_templates.filters.update(page_date=page_date, obfuscate=obfuscate)


# -- the rows of each page: one in_thread call, store functions only ---------------------------


def _visible_list(conn: Connection, address: str):
    return visible_list(
        conn, address, f"There is no list {address} in this archive.", "The archive of {name} is private."
    )


def list_rows(conn: Connection, address: str) -> dict:
    mailing_list = _visible_list(conn, address)
    latest = list_reads.list_threads(conn, mailing_list.id, listing.Page(LATEST_THREADS, 0))
    return {"mailing_list": mailing_list, "threads": latest}


def thread_rows(conn: Connection, address: str, thread_id: str) -> dict:
    mailing_list = _visible_list(conn, address)
    thread = list_reads.find_thread(conn, mailing_list.id, thread_id) if HASH.fullmatch(thread_id) else None
    if thread is None:
        raise ArchiveError(404, f"There is no such thread in {mailing_list.name}.")
    emails = reads.thread_emails(conn, mailing_list, thread_id, listing.Page(THREAD_PAGE_EMAILS, 0))
    return {"mailing_list": mailing_list, "thread": thread, "emails": emails}


def message_rows(conn: Connection, address: str, message_id_hash: str) -> dict:
    mailing_list = _visible_list(conn, address)
    email = reads.find_email(conn, mailing_list, message_id_hash) if HASH.fullmatch(message_id_hash) else None
    if email is None:
        raise ArchiveError(404, f"There is no such message in {mailing_list.name}.")
    return {
        "mailing_list": mailing_list,
        "email": email,
        "children": reads.email_children(conn, email.id),
        "attachments": reads.email_attachments(conn, email.id),
    }


# -- the endpoints -----------------------------------------------------------------------------


class WebPage(ArchiveEndpoint):
    """The door of one page under one web prefix: `rows` reads, `template` renders; errors are pages."""

    unavailable = "The archive is unavailable; try again later."

    def __init__(self, web_prefix: str, rows, template: str, params: tuple[str, ...]) -> None:
        self.web_prefix, self.rows, self.template, self.params = web_prefix, rows, template, params

    def not_allowed(self, method: str) -> str:
        return f"{method} is not allowed here."

    async def respond(self, request: Request) -> Response:
        site = site_url(request)
        links = PageLinks(site + self.web_prefix, Links(site, self.web_prefix + "api/", None))
        context = await in_thread(request, self.rows, *(request.path_params[p] for p in self.params))
        body = _templates.get_template(self.template).render(links=links, **context)
        return Response(body, headers=HEADERS)

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        body = _templates.get_template("page_error.html").render(title=ERROR_TITLES[error.status], text=error.detail)
        allow = {"Allow": self.allow} if error.status == 405 else {}
        return Response(body, status_code=error.status, headers={**HEADERS, **allow})


def pages(web_prefix: str) -> dict[str, WebPage]:
    """The pages under one web prefix (`/archive/`), by path pattern after it."""
    return {
        "list/{address}/": WebPage(web_prefix, list_rows, "page_list.html", ("address",)),
        "list/{address}/thread/{thread_id}/": WebPage(
            web_prefix, thread_rows, "page_thread.html", ("address", "thread_id")
        ),
        "list/{address}/message/{message_id_hash}/": WebPage(
            web_prefix, message_rows, "page_message.html", ("address", "message_id_hash")
        ),
    }
