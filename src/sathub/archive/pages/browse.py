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
from sqlalchemy.engine import Connection
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from sathub.archive.api.links import Links, quote_path
from sathub.archive.api.views import HASH, LIST_ADDRESS
from sathub.archive.store import reads
from sathub.archive.tables import PRIVATE
from sathub.db.engines import DatabaseUnavailable
from sathub.web import in_thread, site_url

LATEST_THREADS = 30
THREAD_PAGE_EMAILS = 1000  # a thread page shows at most this many messages
ALLOW = "GET, HEAD"
# The pages need no script, frame or remote resource; the CSP says so to the browser.
HEADERS = {"Content-Type": "text/html; charset=utf-8", "X-Frame-Options": "DENY",
           "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"}

_templates = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
                                autoescape=True, trim_blocks=True, lstrip_blocks=True)


def list_page_url(web: str, address: str) -> str:
    """`web`: the site URL with the web prefix (`https://host/archive/`)."""
    return f"{web}list/{quote_path(address)}/"


def message_page_url(web: str, address: str, message_id_hash: str) -> str:
    return f"{web}list/{quote_path(address)}/message/{message_id_hash}/"


def thread_page_url(web: str, address: str, thread_id: str) -> str:
    return f"{web}list/{quote_path(address)}/thread/{thread_id}/"


class PageError(Exception):
    def __init__(self, status: int, title: str, text: str):
        super().__init__(text)
        self.status, self.title, self.text = status, title, text


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
    if not LIST_ADDRESS.fullmatch(address):
        raise PageError(404, "Not found", "There is no list at this address.")
    mailing_list = reads.find_list(conn, address)
    if mailing_list is None:
        raise PageError(404, "Not found", f"There is no list {address} in this archive.")
    if mailing_list.archive_policy == PRIVATE:
        raise PageError(403, "Private list", f"The archive of {mailing_list.name} is private.")
    return mailing_list


def list_rows(conn: Connection, address: str) -> dict:
    mailing_list = _visible_list(conn, address)
    latest = reads.list_threads(conn, mailing_list.id, reads.Page(LATEST_THREADS, 0))
    return {"mailing_list": mailing_list, "threads": latest}


def thread_rows(conn: Connection, address: str, thread_id: str) -> dict:
    mailing_list = _visible_list(conn, address)
    thread = reads.find_thread(conn, mailing_list.id, thread_id) if HASH.fullmatch(thread_id) else None
    if thread is None:
        raise PageError(404, "Not found", f"There is no such thread in {mailing_list.name}.")
    emails = reads.thread_emails(conn, mailing_list, thread_id, reads.Page(THREAD_PAGE_EMAILS, 0))
    return {"mailing_list": mailing_list, "thread": thread, "emails": emails}


def message_rows(conn: Connection, address: str, message_id_hash: str) -> dict:
    mailing_list = _visible_list(conn, address)
    email = reads.find_email(conn, mailing_list, message_id_hash) if HASH.fullmatch(message_id_hash) else None
    if email is None:
        raise PageError(404, "Not found", f"There is no such message in {mailing_list.name}.")
    return {"mailing_list": mailing_list, "email": email, "children": reads.email_children(conn, email.id),
            "attachments": reads.email_attachments(conn, email.id)}


# -- the endpoints -----------------------------------------------------------------------------

class WebPage:
    """ASGI app of one page under one web prefix: `rows` reads, `template` renders."""

    def __init__(self, web_prefix: str, rows, template: str, params: tuple[str, ...]) -> None:
        self.web_prefix, self.rows, self.template, self.params = web_prefix, rows, template, params

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        response = await self.respond(request)
        if request.method == "HEAD":
            response.body = b""
        await response(scope, receive, send)

    async def respond(self, request: Request) -> Response:
        if request.method not in ("GET", "HEAD"):
            return self.error(PageError(405, "Method not allowed", f"{request.method} is not allowed here."),
                              {"Allow": ALLOW})
        site = site_url(request)
        links = PageLinks(site + self.web_prefix, Links(site, self.web_prefix + "api/", None))
        try:
            context = await in_thread(request, self.rows, *(request.path_params[p] for p in self.params))
        except PageError as error:
            return self.error(error)
        except DatabaseUnavailable:
            return self.error(PageError(503, "Unavailable", "The archive is unavailable; try again later."))
        body = _templates.get_template(self.template).render(links=links, **context)
        return Response(body, headers=HEADERS)

    def error(self, error: PageError, headers: dict[str, str] | None = None) -> Response:
        body = _templates.get_template("page_error.html").render(title=error.title, text=error.text)
        return Response(body, status_code=error.status, headers={**HEADERS, **(headers or {})})


def pages(web_prefix: str) -> dict[str, WebPage]:
    """The pages under one web prefix (`/archive/`), by path pattern after it."""
    return {
        "list/{address}/": WebPage(web_prefix, list_rows, "page_list.html", ("address",)),
        "list/{address}/thread/{thread_id}/": WebPage(web_prefix, thread_rows, "page_thread.html",
                                                      ("address", "thread_id")),
        "list/{address}/message/{message_id_hash}/": WebPage(web_prefix, message_rows, "page_message.html",
                                                             ("address", "message_id_hash")),
    }
