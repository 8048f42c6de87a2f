"""Old Mailman 2 (pipermail) links, under each web prefix as HyperKitty's compatibility routes:

    pipermail/<list name>/                              302 to the list page
    pipermail/<list name>/<yyyy>-<Month>/               302 to the month page list/<address>/<yyyy>/<mm>/
    pipermail/<list name>/<yyyy>-<Month>/thread.html    (date, subject, author: any index) the same
    pipermail/<list name>/<yyyy>-<Month>.txt.gz         302 to that month's mbox export
    pipermail/<list name>/<yyyy>-<Month>/<NNNNNN>.html  301 to the message page, when the number is known

<list name> is the part of the posting address before `@`; when several lists share it, the one
whose domain is the request's host (or a parent domain of it) wins, else the first by address.
Private lists are left out before that choice: one never shadows a public list of its name, and
answers as a list that does not exist (its 403 would name it to whoever guesses its local part).
Pipermail numbered a list's messages 0, 1, 2, … in the order of the list's mbox, across months
(Mailman/Archiver/pipermail.py: `sequence` starts at 0 and grows by one per message; HyperArch
names the page `'%06i.html' % sequence`). A number is known when the list was imported from its
complete archive with `--pipermail-numbers` (store/pipermail_numbers.py); otherwise the link answers 404,
with a link to the month. HyperKitty answers the `.txt.gz` with 500 "Not implemented yet" and
has no message links (its draft counted from 1: wrong)."""

from __future__ import annotations

import calendar
import re

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from sathub.archive.edge import ArchiveError
from sathub.archive.links import list_page_url, message_page_url, quote_path
from sathub.archive.store import lists, pipermail_numbers
from sathub.archive.web_door import HEADERS, WebDoor, page_links, render_page
from sathub.db.dialect import MAX_INTEGER
from sathub.db.engines import Connection, Row
from sathub.web import in_thread, site_url

MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_PERIOD = re.compile(r"(\d{4})-([A-Za-z]+)")
_INDEX = re.compile(r"[a-z]+")
_NUMBER = re.compile(r"\d{1,10}")


def month_of(period: str) -> tuple[int, int]:
    """(year, month) of pipermail's `2004-August`, or ArchiveError 404."""
    found = _PERIOD.fullmatch(period)
    month = MONTHS.get(found.group(2).lower()) if found else None
    if found is None or month is None:
        raise ArchiveError(404, f"{period} is not a month of a pipermail archive (e.g. 2004-August).")
    return int(found.group(1)), month


def pipermail_list(conn: Connection, list_name: str, host: str) -> Row:
    """The public list of Mailman 2 name `list_name` (see the module's docstring), else 404."""
    found = (
        lists.public_lists_by_local_part(conn, list_name) if "@" not in list_name and "\x00" not in list_name else []
    )
    if not found:
        raise ArchiveError(404, f"There is no list {list_name} in this archive.")
    host = host.split(":")[0].lower()
    by_host = [row for row in found if host == (domain := row.name.split("@", 1)[1]) or host.endswith("." + domain)]
    return (by_host or found)[0]


def _numbered(conn: Connection, list_name: str, host: str, number: int) -> tuple[str, str | None]:
    mailing_list = pipermail_list(conn, list_name, host)
    return mailing_list.name, pipermail_numbers.numbered_message(conn, mailing_list.id, number)


def _address(conn: Connection, list_name: str, host: str) -> str:
    return pipermail_list(conn, list_name, host).name


class Pipermail(WebDoor):
    """Every pipermail path under one web prefix; `kind` says which of the module's rows it is."""

    def __init__(self, web_prefix: str, kind: str) -> None:
        super().__init__(web_prefix)
        self.kind = kind

    async def respond(self, request: Request) -> Response:
        params = request.path_params
        web = site_url(request) + self.web_prefix
        host = request.headers.get("host", "")
        if self.kind == "list":
            address = await in_thread(request, _address, params["list_name"], host)
            return RedirectResponse(list_page_url(web, address), 302)
        year, month = month_of(params["period"])
        if self.kind == "mbox":
            address = await in_thread(request, _address, params["list_name"], host)
            after = (year + month // 12, month % 12 + 1)
            query = f"start={year:04d}-{month:02d}-01&end={after[0]:04d}-{after[1]:02d}-01"
            export = f"{web}list/{quote_path(address)}/export/{params['period']}.mbox.gz?{query}"
            return RedirectResponse(export, 302)
        page = params.get("page")
        if page is None or _INDEX.fullmatch(page):
            address = await in_thread(request, _address, params["list_name"], host)
            return RedirectResponse(_month_url(web, address, year, month), 302)
        if not _NUMBER.fullmatch(page) or int(page) > MAX_INTEGER:
            raise ArchiveError(404, f"{page}.html is not a page of a pipermail archive.")
        address, message_id_hash = await in_thread(request, _numbered, params["list_name"], host, int(page))
        if message_id_hash is None:
            return _missing(request, self.web_prefix, address, year, month, page)
        return RedirectResponse(message_page_url(web, address, message_id_hash), 301)


def _month_url(web: str, address: str, year: int, month: int) -> str:
    return f"{list_page_url(web, address)}{year:04d}/{month:02d}/"


def _missing(request: Request, web_prefix: str, address: str, year: int, month: int, page: str) -> Response:
    """404: a message number this archive does not know, with the way to the month."""
    site = site_url(request)
    body = render_page(
        "page_pipermail_missing.html",
        title="Not found",
        text=f"This archive does not know which message was number {page} of the old archive of {address}.",
        month_url=_month_url(site + web_prefix, address, year, month),
        month_label=f"{calendar.month_name[month]} {year}",
        list_name=address,
        links=page_links(request, web_prefix),
    )
    return Response(body, 404, HEADERS)


def pipermail_routes(web_prefix: str) -> dict[str, Pipermail]:
    """Path patterns after the web prefix -> doors, in the order they must be tried (a month
    without its slash would take `2004-August.txt.gz`). Those ending in `/` also answer without
    it, as HyperKitty's `/?$` routes do (a redirect already)."""
    return {
        "pipermail/{list_name}/{period}.txt.gz": Pipermail(web_prefix, "mbox"),
        "pipermail/{list_name}/{period}/{page}.html": Pipermail(web_prefix, "page"),
        "pipermail/{list_name}/{period}/": Pipermail(web_prefix, "month"),
        "pipermail/{list_name}/": Pipermail(web_prefix, "list"),
    }
