"""The base of every HTML door of the archive (the pages to browse, the feeds, the raw sources, the
exports, the pipermail links, the search page): its headers, the templates and their filters, and
the error page with a way back that each of them answers instead of a 200."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import jinja2
from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.edge import ArchiveEndpoint, ArchiveError
from sathub.archive.links import Links, PageLinks
from sathub.archive.mail.senders import obfuscate, shown_sender
from sathub.web import site_url

ERROR_TITLES = {
    400: "Bad request",
    403: "Private list",
    404: "Not found",
    405: "Method not allowed",
    429: "Too many requests",
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

# Every door's templates are kept with the pages, which have most of them; they share one base.
_templates = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "pages" / "templates"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)


# A year is written with four digits: C's strftime writes year 1 as `1` (a Date: of 0001 is stored
# as written, docs/archive-import.md).
def page_date(value: datetime) -> str:
    return f"{value.year:04d}-{value:%m-%d %H:%M} UTC"


def iso_date(value: datetime) -> str:
    """For `<time datetime>`: the machine-readable form of page_date."""
    return f"{value.year:04d}-{value:%m-%dT%H:%M}Z"


def month_name(month: int) -> str:
    return MONTH_NAMES[month - 1]


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


_templates.filters.update(
    page_date=page_date,
    iso_date=iso_date,
    obfuscate=obfuscate,
    sender=shown_sender,
    month_name=month_name,
    plural=plural,
)


def render_page(template: str, **context) -> str:
    return _templates.get_template(template).render(**context)


def page_links(request: Request, web_prefix: str) -> PageLinks:
    site = site_url(request)
    return PageLinks(site + web_prefix, Links(site, web_prefix + "api/", None))


def error_page(request: Request, web_prefix: str, error: ArchiveError, allow: str) -> Response:
    """The HTML page of an ArchiveError: its title, its text, a way back."""
    links = page_links(request, web_prefix)
    body = render_page("page_error.html", title=ERROR_TITLES[error.status], text=error.detail, links=links)
    extra = {"Allow": allow} if error.status == 405 else {}
    return Response(body, status_code=error.status, headers={**HEADERS, **extra})


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
